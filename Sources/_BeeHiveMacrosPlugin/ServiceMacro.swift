#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// `@BeeHiveService(P.self)` and `@BeeHiveService(P.self, name: "formal")`: registers the annotated type as an
/// implementation of `P`, adding its `ServiceImplementation` conformance when the type does not declare it.
public struct ServiceMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let arguments = MacroArguments(node.arguments?.as(LabeledExprListSyntax.self), macro: "@BeeHiveService")
        try requireKind(of: declaration, macro: arguments.macro, expected: "a class, struct, enum or actor")
        let site = try AnnotationSite(of: node, in: context)
        let implementation = try AttachedType(declaration, type: type, attribute: node, site: site, context: context)
        let annotation = try serviceAnnotation(arguments, implementation: implementation.name, site: site, at: node)
        let conformance = protocols.isEmpty ? "" : ": BeeHive::ServiceImplementation"
        let members = annotation.declarations(at: site, placement: .member, in: context)
        let extensionDecl: DeclSyntax = """
            extension \(type.trimmed)\(raw: conformance) {
            \(raw: members.map(\.description).joined(separator: "\n"))
            }
            """
        return [extensionDecl.cast(ExtensionDeclSyntax.self)]
    }
}

/// The annotation of a service: the service from the first unlabelled argument, an optional `name:`.
func serviceAnnotation(
    _ arguments: MacroArguments, implementation: QualifiedTypeName, site: AnnotationSite,
    at node: some SyntaxProtocol, serviceIndex: Int = 0
) throws -> Annotation {
    guard arguments.unlabelled.count > serviceIndex else {
        throw AnnotationDiagnostic(
            code: .notATypeName,
            message: "\(arguments.macro) expected the service protocol as its first argument "
                + "(such as 'UserTrackService.self'), found none"
        ).at(node)
    }
    let service = try QualifiedTypeName.parse(
        metatype: arguments.unlabelled[serviceIndex], currentModule: site.module, role: "service protocol")
    var pairs: [(key: String, value: RecordBytes.Value)] = [
        ("service", .string(service.recordName)), ("impl", .string(implementation.recordName)),
    ]
    if let name = arguments.labelled["name"] {
        pairs.append(("name", .string(try arguments.string(name, role: "service name"))))
    }
    let typed =
        "service(\(service.checkedSpelling).self, implementation: \(implementation.checkedSpelling).self, "
        + "named: \"\(Annotation.swiftStringContents(implementation.recordName))\", upcast: { $0 })"
    return Annotation(section: RecordBytes.servicesSection, pairs: pairs, typedRecord: typed)
}

/// Refuses declarations other than classes, structs, enums and actors (protocols, extensions).
func requireKind(of declaration: some DeclGroupSyntax, macro: String, expected: String) throws {
    if declaration.is(StructDeclSyntax.self) || declaration.is(ClassDeclSyntax.self)
        || declaration.is(EnumDeclSyntax.self) || declaration.is(ActorDeclSyntax.self)
    {
        return
    }
    throw AnnotationDiagnostic(
        code: .notAType,
        message: "\(macro) expected to be attached to \(expected), found "
            + "'\(declaration.introducer.text) \(declarationName(declaration))'"
    ).at(declaration.introducer)
}

/// The name a declaration group declares or extends, for messages.
func declarationName(_ declaration: some DeclGroupSyntax) -> String {
    if let protocolDecl = declaration.as(ProtocolDeclSyntax.self) { return protocolDecl.name.text }
    if let extensionDecl = declaration.as(ExtensionDeclSyntax.self) {
        return extensionDecl.extendedType.trimmedDescription
    }
    return ""
}
#endif
