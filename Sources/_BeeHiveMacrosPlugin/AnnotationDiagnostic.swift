#if Macros
import SwiftDiagnostics
import SwiftSyntax

/// A mistake in an annotation, reported by the macro at the annotation: each message says what was expected,
/// what was found, and names the types involved.
struct AnnotationDiagnostic: DiagnosticMessage, Error {
    /// What kind of mistake, for tests and for the diagnostic's identifier.
    enum Code: String {
        case notATypeName
        case genericType
        case protocolComposition
        case existentialType
        case metatypeType
        case localType
        case privateType
        case notAType
        case argumentNotLiteral
        case unknownLevel
        case routeNotLiteral
        case misplaced
        case malformedVersion
    }

    let code: Code
    let message: String
    var severity: DiagnosticSeverity { .error }
    var diagnosticID: MessageID { MessageID(domain: "BeeHiveMacros", id: code.rawValue) }

    /// The diagnostic at `node`, with any fix-its.
    func at(_ node: some SyntaxProtocol, fixIts: [FixIt] = []) -> DiagnosticsError {
        DiagnosticsError(diagnostics: [Diagnostic(node: Syntax(node), message: self, fixIts: fixIts)])
    }
}

/// A fix-it's message.
struct AnnotationFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "BeeHiveMacros", id: message) }
}
#endif
