#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// `@BeeHiveServiceKey` on a protocol `P`: declares `PKey`, its `ServiceKey`, and beside it
/// `_beeHiveServiceKey(_: (any P).Type) -> PKey.Type`, which the service macros' typed records call: overload
/// resolution prefers it, in every client, to BeeHive's generic `_beeHiveServiceKey`, which gives the type itself.
public struct ServiceKeyMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let attached = try AttachedProtocol(
            declaration, node: node, role: "a service",
            reason: "its implementations find its key by a function beside it", in: context)
        if let arguments = node.arguments?.as(LabeledExprListSyntax.self), !arguments.isEmpty {
            throw AnnotationDiagnostic(
                code: .argumentNotLiteral,
                message: "@BeeHiveServiceKey expected no argument, found '\(arguments.trimmedDescription)'"
            ).at(node)
        }
        let site = try AnnotationSite(of: node, in: context)
        let name = attached.declaration.name.text
        let (access, inlining) = (attached.access, attached.inlining)
        let serviceName = Annotation.swiftStringContents(site.module + "." + name)
        return [
            """
            /// The key of `\(raw: name)` (`@BeeHiveServiceKey`): `Hive.createService(\(raw: name)Key.self)` makes or \
            finds its service without naming the protocol's type at run time.
            \(raw: access)enum \(raw: name)Key: BeeHive::ServiceKey {
                \(raw: access)typealias Service = any \(raw: name)
                \(raw: access)static var serviceName: String { "\(raw: serviceName)" }
            }
            """,
            """
            /// `\(raw: name)`'s key, for the records of its implementations (`@BeeHiveServiceKey`).
            \(raw: inlining)\(raw: access)func _beeHiveServiceKey(_: (any \(raw: name)).Type) -> \(raw: name)Key.Type {
                \(raw: name)Key.self
            }
            """,
        ]
    }
}
#endif
