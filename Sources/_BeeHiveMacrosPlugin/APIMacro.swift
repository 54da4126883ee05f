#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// `@BeeHiveAPI("2.1.0")` on a protocol: declares the version of the protocol's API.
///
/// Beside the protocol it declares `_beeHiveAPIVersion(_: (any P).Type)`, emitted into every client, which the
/// service macros call for the services they annotate: so each service record says which version of its protocol's
/// API its code was compiled against. It also writes an API record (record kind 4), from which a process knows the
/// version it serves, and the record's JSON for the `beehive` tool.
public struct APIMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let arguments = MacroArguments(node.arguments?.as(LabeledExprListSyntax.self), macro: "@BeeHiveAPI")
        let attached = try AttachedProtocol(
            declaration, node: node, role: "a service's API",
            reason: "its clients find its version by a function beside it", in: context)
        guard let written = arguments.unlabelled.first, arguments.unlabelled.count == 1, arguments.labelled.isEmpty
        else {
            throw AnnotationDiagnostic(
                code: .argumentNotLiteral,
                message: "@BeeHiveAPI expected one argument, the API's version (such as \"2.1.0\"), found "
                    + "'\(node.arguments?.trimmedDescription ?? "")'"
            ).at(node)
        }
        let text = try arguments.string(written, role: "API's version")
        guard let version = Self.version(text) else {
            throw AnnotationDiagnostic(
                code: .malformedVersion,
                message: "@BeeHiveAPI expected a version MAJOR.MINOR or MAJOR.MINOR.PATCH of decimal numbers (such as "
                    + "\"2.1.0\"), found \"\(text)\""
            ).at(written)
        }
        let site = try AnnotationSite(of: node, in: context)
        let name = attached.declaration.name.text
        let api = site.module + "." + name
        let (access, inlining) = (attached.access, attached.inlining)
        let marker = "beehive-api:\(api)@\(version)"
        let annotation = Annotation(
            kind: .api, pairs: [("api", .string(api)), ("version", .string(version))],
            typedRecord: "type((any \(name)).self, named: \"\(Annotation.swiftStringContents(api))\")")
        let function: DeclSyntax = """
            /// The version of `\(raw: name)`'s API that code compiled against this module is built for (`@BeeHiveAPI`).
            \(raw: inlining)\(raw: access)func _beeHiveAPIVersion(_: (any \(raw: name)).Type) -> StaticString {
                "\(raw: Annotation.swiftStringContents(marker))"
            }
            """
        return [function] + annotation.declarations(at: site, placement: .global, in: context)
    }

    /// `text` as `MAJOR.MINOR.PATCH` when it is `MAJOR.MINOR` or `MAJOR.MINOR.PATCH` of decimal numbers of at most 9
    /// digits (the runtime's `APIVersion` reads the same form).
    static func version(_ text: String) -> String? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        let numbers = parts.map { String(Int($0)!) }
        return (numbers + ["0"]).prefix(3).joined(separator: ".")
    }
}
#endif
