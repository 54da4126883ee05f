#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// `@BeeHiveRoute("app://user/:id")`: declares the annotated `RouteHandler` as the handler of a URL pattern, as
/// `BH_ROUTE` does.
public struct RouteMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let arguments = MacroArguments(node.arguments?.as(LabeledExprListSyntax.self), macro: "@BeeHiveRoute")
        try requireKind(of: declaration, macro: arguments.macro, expected: "a class, struct or enum (a RouteHandler)")
        let site = try AnnotationSite(of: node, in: context)
        let handler = try AttachedType(declaration, type: type, attribute: node, site: site, context: context)
        let annotation = try routeAnnotation(arguments, patternIndex: 0, handler: handler.name, at: node)
        return [memberExtension(of: type, annotation.declarations(at: site, placement: .member, in: context))]
    }
}

/// `#BeeHiveRoute("app://user/:id", UserRoute.self)`: declares a handler type declared elsewhere.
public struct RouteDeclarationMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let arguments = MacroArguments(node.arguments, macro: "#BeeHiveRoute")
        let placement = try freestandingPlacement(of: node, macro: arguments.macro, in: context)
        let site = try AnnotationSite(of: node, in: context)
        guard arguments.unlabelled.count == 2 else {
            throw AnnotationDiagnostic(
                code: .notATypeName,
                message: "#BeeHiveRoute expected a pattern and a handler type "
                    + "(such as '#BeeHiveRoute(\"app://user/:id\", UserRoute.self)'), "
                    + "found \(arguments.unlabelled.count) unlabelled arguments"
            ).at(node)
        }
        let handler = try QualifiedTypeName.parse(
            metatype: arguments.unlabelled[1], currentModule: site.module, role: "route handler")
        let annotation = try routeAnnotation(arguments, patternIndex: 0, handler: handler, at: node)
        let check = handler.writtenNameCheckType(
            named: context.makeUniqueName("BeeHiveNameCheck").text, placement: placement,
            written: "#BeeHiveRoute(…, \(arguments.unlabelled[1].trimmedDescription))", role: "route handler")
        return annotation.declarations(at: site, placement: placement, in: context) + (check.map { [$0] } ?? [])
    }
}

/// The annotation of a route: the pattern (a string literal) and the handler.
func routeAnnotation(
    _ arguments: MacroArguments, patternIndex: Int, handler: QualifiedTypeName, at node: some SyntaxProtocol
) throws -> Annotation {
    guard arguments.unlabelled.count > patternIndex else {
        throw AnnotationDiagnostic(
            code: .routeNotLiteral,
            message: "\(arguments.macro) expected a URL pattern such as \"app://user/:id\", found none"
        ).at(node)
    }
    let pattern = try arguments.string(arguments.unlabelled[patternIndex], role: "URL pattern")
    let typed =
        "type(\(handler.checkedSpelling).self as any BeeHiveRouter::RouteHandler.Type, "
        + "named: \"\(Annotation.swiftStringContents(handler.recordName))\")"
    return Annotation(
        kind: .route,
        pairs: [("route", .string(pattern)), ("handler", .string(handler.recordName))],
        typedRecord: typed)
}
#endif
