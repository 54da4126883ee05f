#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// The protocol a peer annotation of a protocol is written on (`@BeeHiveAPI`, `@BeeHiveServiceKey`), checked: what it
/// declares beside the protocol includes a function its clients find by overload, so the protocol is at file scope.
struct AttachedProtocol {
    let declaration: ProtocolDeclSyntax

    /// Checks `declaration`, annotated with `node`.
    ///
    /// - Parameters:
    ///   - role: What the protocol is to the annotation, for the message ("a service").
    ///   - reason: Why it must be at file scope, for the message ("its clients find its version by a function beside
    ///     it").
    /// - Throws: `AnnotationDiagnostic`: `notAType` or `misplaced`.
    init(
        _ declaration: some DeclSyntaxProtocol, node: AttributeSyntax, role: String, reason: String,
        in context: some MacroExpansionContext
    ) throws {
        let macro = "@" + node.attributeName.trimmedDescription
        guard let protocolDecl = declaration.as(ProtocolDeclSyntax.self) else {
            throw AnnotationDiagnostic(
                code: .notAType,
                message: "\(macro) expected to be attached to a protocol (\(role)), found "
                    + "'\(declaration.trimmedDescription.prefix(40))'"
            ).at(node)
        }
        guard context.lexicalContext.isEmpty else {
            throw AnnotationDiagnostic(
                code: .misplaced,
                message: "\(macro) expected a protocol declared at file scope, found '\(protocolDecl.name.text)' "
                    + "inside another declaration: \(reason), which must be at file scope too"
            ).at(node)
        }
        self.declaration = protocolDecl
    }

    /// The access the protocol declares, as a modifier with its space (`public `); `""` for internal.
    var access: String {
        for modifier in declaration.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            case .keyword(.fileprivate), .keyword(.private): return "fileprivate "
            default: continue
            }
        }
        return ""
    }

    /// `@_alwaysEmitIntoClient` and a line break for a public protocol, whose clients are other modules; `""` else.
    var inlining: String { access == "public " ? "@_alwaysEmitIntoClient\n" : "" }
}
#endif
