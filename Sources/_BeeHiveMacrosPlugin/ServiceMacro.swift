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
        let check = context.makeUniqueName("BeeHiveConformanceCheck").text
        let annotation = try serviceAnnotation(
            arguments, implementation: implementation.name, site: site, at: node, conformanceCheck: check)
        let addsConformance = !protocols.isEmpty && isFirstServiceAnnotation(node, of: declaration)
        let conformance = addsConformance ? ": BeeHive::ServiceImplementation" : ""
        let members =
            annotation.declarations(at: site, placement: .member, in: context)
            + [conformanceCheck(named: check, annotation: annotation, placement: .member)]
        let extensionDecl: DeclSyntax = """
            extension \(type.trimmed)\(raw: conformance) {
            \(raw: members.map(\.description).joined(separator: "\n"))
            }
            """
        return [extensionDecl.cast(ExtensionDeclSyntax.self)]
    }
}

/// Whether `node` is the first `@BeeHiveService` of `declaration`, which alone adds the `ServiceImplementation`
/// conformance to a type annotated with several services (each expansion is told the type lacks it, and two
/// extensions declaring it are a redundant conformance). Compared by text: the compiler gives the attribute apart
/// from the declaration.
func isFirstServiceAnnotation(_ node: AttributeSyntax, of declaration: some DeclGroupSyntax) -> Bool {
    let first = declaration.attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }.first {
        $0.attributeName.trimmedDescription.split(separator: ".").last == "BeeHiveService"
    }
    return first.map { $0.trimmedDescription == node.trimmedDescription } ?? true
}

/// The annotation of a service: the service from the first unlabelled argument, an optional `name:`, `rank:` and
/// `properties:`.
func serviceAnnotation(
    _ arguments: MacroArguments, implementation: QualifiedTypeName, site: AnnotationSite,
    at node: some SyntaxProtocol, serviceIndex: Int = 0, conformanceCheck check: String
) throws -> ServiceAnnotation {
    guard arguments.unlabelled.count > serviceIndex else {
        throw AnnotationDiagnostic(
            code: .notATypeName,
            message: "\(arguments.macro) expected the service protocol as its first argument "
                + "(such as 'UserTrackService.self'), found none"
        ).at(node)
    }
    let service = try QualifiedTypeName.parse(
        metatype: arguments.unlabelled[serviceIndex], currentModule: site.module, role: "service protocol",
        annotation: WrittenAnnotation(node: Syntax(node), argument: arguments.unlabelled[serviceIndex]))
    var pairs: [(key: String, value: RecordBytes.Value)] = [
        ("service", .string(service.recordName)), ("impl", .string(implementation.recordName)),
    ]
    // What the JSON says besides the types is said to the typed record too, so that BeeHive registers it without
    // parsing the JSON (properties excepted: only the JSON carries them).
    var said = ""
    if let name = arguments.labelled["name"] {
        let name = try arguments.string(name, role: "service name")
        pairs.append(("name", .string(name)))
        said += "registrationName: \"\(Annotation.swiftStringContents(name))\", "
    }
    if let rank = arguments.labelled["rank"] {
        let rank = try arguments.integer(rank, role: "rank")
        pairs.append(("rank", .integer(rank)))
        said += "rank: \(rank), "
    }
    said += "file: \"\(Annotation.swiftStringContents(site.file))\", line: \(site.line), "
    if let properties = arguments.labelled["properties"] {
        for (key, value) in try arguments.strings(properties, role: "properties") {
            pairs.append(("property:" + key, .string(value)))
        }
        said += "hasProperties: true, "
    }
    let written = "\(arguments.macro)(\(arguments.unlabelled[serviceIndex].trimmedDescription))"
    // `_beeHiveServiceKey` gives the service's key when its protocol declares one (`@BeeHiveServiceKey`): the
    // record is then registered under the key, and nothing names the protocol's type at run time.
    let typed =
        "service(_beeHiveServiceKey(\(check).Service.self), implementation: \(implementation.checkedSpelling).self, "
        + "named: \"\(Annotation.swiftStringContents(implementation.recordName))\", "
        + "serviceNamed: \"\(Annotation.swiftStringContents(service.recordName))\", \(said)"
        + "upcast: { \(check).implementationOfTheService($0) })"
    let annotation = Annotation(
        kind: .service, pairs: pairs, typedRecord: typed,
        apiMarker: "_beeHiveAPIVersion(\(check).Service.self)")
    return ServiceAnnotation(annotation: annotation, written: written, service: service, implementation: implementation)
}

/// A service's annotation, and what its conformance check needs.
struct ServiceAnnotation {
    /// The records.
    var annotation: Annotation
    /// The annotation as written, for messages: `@BeeHiveService(Clock.self)`.
    let written: String
    let service: QualifiedTypeName
    let implementation: QualifiedTypeName

    func declarations(
        at site: AnnotationSite, placement: Annotation.Placement, in context: some MacroExpansionContext
    ) -> [DeclSyntax] {
        annotation.declarations(at: site, placement: placement, in: context)
    }
}

/// The type whose method is the typed record's `upcast` closure (`{ $0 }`), with overloads that turn an implementation
/// that does not conform to its service into an error in our words, with the compiler's note at the annotation:
/// "'implementationOfTheService' is unavailable: @BeeHiveService(Clock.self): App.WallClock must conform to App.Clock,
/// the service it is annotated with".
///
/// A macro cannot know conformances; the compiler can. When the implementation conforms, overload resolution picks
/// the constrained overload (the unavailable one costs more) and nothing is reported; when it does not, only the
/// unavailable one is left, and its message is the error. The constrained overload returns `(T) -> T`, which converts
/// to `(T) -> Service` for a protocol or a class; the other returns whatever the context asks for, so that choosing it
/// leaves no error but its own. A type of its own, beside the records, not in the accessor: the accessor is a C
/// function pointer, and the methods of a type declared inside it are not emitted.
///
/// It also holds the members of ``moduleCheck(_:implementation:)``, to which `implementationWritten` is passed.
func conformanceCheck(
    named name: String, annotation: ServiceAnnotation, placement: Annotation.Placement,
    implementationWritten: String? = nil
) -> DeclSyntax {
    let message = Annotation.swiftStringContents(
        "\(annotation.written): \(annotation.implementation.recordName) must conform to "
            + "\(annotation.service.recordName), the service it is annotated with (add the conformance, or annotate it "
            + "with a service it implements)")
    let access = placement == .member ? "" : "private "
    return """
        \(raw: access)enum \(raw: name) {
            typealias Service = \(raw: annotation.service.checkedSpelling)
            static func implementationOfTheService<T: Service>(_ instance: T) -> T {
                instance
            }
            @available(*, unavailable, message: "\(raw: message)")
            static func implementationOfTheService<T, S>(_ instance: T) -> S { fatalError() }
        \(raw: moduleCheck(annotation, implementation: implementationWritten))}
        """
}

/// The members of the conformance check that check the names the annotation wrote without their module (see
/// ``QualifiedTypeName/writtenNameCheck(alias:written:role:noun:)``): the service, and `#BeeHiveService`'s
/// implementation.
///
/// - Parameter implementation: `#BeeHiveService`'s implementation argument as written, for the message
///   (`#BeeHiveService(…, Shelf.self)`); `nil` for `@BeeHiveService`, whose implementation is the annotated type.
func moduleCheck(_ annotation: ServiceAnnotation, implementation: String? = nil) -> String {
    var members = annotation.service.writtenNameCheck(
        alias: "Service", written: annotation.written, role: "service", noun: "protocol")
    if let implementation {
        let alias = "Implementation"
        let check = annotation.implementation.writtenNameCheck(
            alias: alias, written: implementation, role: "implementation", noun: "type")
        if !check.isEmpty {
            members += "    typealias \(alias) = \(annotation.implementation.checkedSpelling)\n" + check
        }
    }
    return members
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
