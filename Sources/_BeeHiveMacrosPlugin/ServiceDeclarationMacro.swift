#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// `#BeeHiveService(P.self, Impl.self)` and `#BeeHiveService(P.self, Impl.self, name: "formal")`: registers a type
/// declared elsewhere (another file or module). The implementation must already conform to
/// `ServiceImplementation`; the compiler checks it, and that it is a `P`.
public struct ServiceDeclarationMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let arguments = MacroArguments(node.arguments, macro: "#BeeHiveService")
        let placement = try freestandingPlacement(of: node, macro: arguments.macro, in: context)
        let site = try AnnotationSite(of: node, in: context)
        guard arguments.unlabelled.count == 2 else {
            throw AnnotationDiagnostic(
                code: .notATypeName,
                message: "#BeeHiveService expected two types, the service and its implementation "
                    + "(such as '#BeeHiveService(UserTrackService.self, ConsoleTracker.self)'), "
                    + "found \(arguments.unlabelled.count) unlabelled arguments"
            ).at(node)
        }
        let implementation = try QualifiedTypeName.parse(
            metatype: arguments.unlabelled[1], currentModule: site.module, role: "implementation")
        let check = context.makeUniqueName("BeeHiveConformanceCheck").text
        let annotation = try serviceAnnotation(
            arguments, implementation: implementation, site: site, at: node, conformanceCheck: check)
        let written = "#BeeHiveService(…, \(arguments.unlabelled[1].trimmedDescription))"
        return annotation.declarations(at: site, placement: placement, in: context)
            + [
                conformanceCheck(
                    named: check, annotation: annotation, placement: placement, implementationWritten: written)
            ]
    }
}

/// Where a freestanding annotation's declarations go: file scope, or a type's body; never a function's.
///
/// - Throws: `AnnotationDiagnostic` (`misplaced`) inside a function, closure or accessor.
func freestandingPlacement(
    of node: some FreestandingMacroExpansionSyntax, macro: String, in context: some MacroExpansionContext
) throws -> Annotation.Placement {
    guard let innermost = context.lexicalContext.first else { return .global }
    if innermost.is(StructDeclSyntax.self) || innermost.is(ClassDeclSyntax.self) || innermost.is(EnumDeclSyntax.self)
        || innermost.is(ActorDeclSyntax.self) || innermost.is(ExtensionDeclSyntax.self)
    {
        return .member
    }
    throw AnnotationDiagnostic(
        code: .misplaced,
        message: "\(macro) expected at file scope or in a type's body, found it inside a function or closure, "
            + "where records cannot be declared"
    ).at(node)
}
#endif
