#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// `@BeeHiveMod(level: .basic, priority: 100, async: true)` (every argument optional): declares the annotated
/// `HiveModule`, as `BH_MODULE` does.
public struct ModuleMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let arguments = MacroArguments(node.arguments?.as(LabeledExprListSyntax.self), macro: "@BeeHiveMod")
        try requireKind(of: declaration, macro: arguments.macro, expected: "a class (a HiveModule)")
        let site = try AnnotationSite(of: node, in: context)
        let module = try AttachedType(declaration, type: type, attribute: node, site: site, context: context)
        let annotation = try moduleAnnotation(arguments, module: module.name)
        return [memberExtension(of: type, annotation.declarations(at: site, placement: .member, in: context))]
    }
}

/// `#BeeHiveMod(LoginModule.self, level: .basic, priority: 100, async: true)`: declares a module type declared
/// elsewhere.
public struct ModuleDeclarationMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let arguments = MacroArguments(node.arguments, macro: "#BeeHiveMod")
        let placement = try freestandingPlacement(of: node, macro: arguments.macro, in: context)
        let site = try AnnotationSite(of: node, in: context)
        guard let type = arguments.unlabelled.first, arguments.unlabelled.count == 1 else {
            throw AnnotationDiagnostic(
                code: .notATypeName,
                message: "#BeeHiveMod expected one module type (such as '#BeeHiveMod(LoginModule.self)'), "
                    + "found \(arguments.unlabelled.count) unlabelled arguments"
            ).at(node)
        }
        let module = try QualifiedTypeName.parse(metatype: type, currentModule: site.module, role: "module")
        let annotation = try moduleAnnotation(arguments, module: module)
        let check = module.writtenNameCheckType(
            named: context.makeUniqueName("BeeHiveNameCheck").text, placement: placement,
            written: "#BeeHiveMod(\(type.trimmedDescription))", role: "module type")
        return annotation.declarations(at: site, placement: placement, in: context) + (check.map { [$0] } ?? [])
    }
}

/// The levels a module record may name (`Docs/RecordFormat.md`).
private let moduleLevels: Set<String> = ["basic", "capability", "normal", "feature", "application"]

/// The annotation of a module: `level:` (`.basic`, `.normal`, `.application`, their aliases, or an integer),
/// `priority:` and `async:`, each written only when given.
func moduleAnnotation(_ arguments: MacroArguments, module: QualifiedTypeName) throws -> Annotation {
    var pairs: [(key: String, value: RecordBytes.Value)] = [("module", .string(module.recordName))]
    if let level = arguments.labelled["level"] {
        if let member = level.as(MemberAccessExprSyntax.self), member.base == nil,
            moduleLevels.contains(member.declName.baseName.text)
        {
            pairs.append(("level", .string(member.declName.baseName.text)))
        } else if level.is(IntegerLiteralExprSyntax.self) || level.is(PrefixOperatorExprSyntax.self) {
            pairs.append(("level", .integer(try arguments.integer(level, role: "level"))))
        } else {
            throw AnnotationDiagnostic(
                code: .unknownLevel,
                message: "@BeeHiveMod expected the level as '.basic', '.normal', '.application' (or "
                    + "'.capability', '.feature') or an integer literal, found '\(level.trimmedDescription)'"
            ).at(level)
        }
    }
    if let priority = arguments.labelled["priority"] {
        pairs.append(("priority", .integer(try arguments.integer(priority, role: "priority"))))
    }
    if let async = arguments.labelled["async"] {
        pairs.append(("async", .boolean(try arguments.boolean(async, role: "async flag"))))
    }
    let typed =
        "type(\(module.checkedSpelling).self as any BeeHiveModules::HiveModule.Type, "
        + "named: \"\(Annotation.swiftStringContents(module.recordName))\")"
    return Annotation(kind: .module, pairs: pairs, typedRecord: typed)
}

/// An extension of `type` holding `members`.
func memberExtension(of type: some TypeSyntaxProtocol, _ members: [DeclSyntax]) -> ExtensionDeclSyntax {
    let extensionDecl: DeclSyntax = """
        extension \(type.trimmed) {
        \(raw: members.map(\.description).joined(separator: "\n"))
        }
        """
    return extensionDecl.cast(ExtensionDeclSyntax.self)
}
#endif
