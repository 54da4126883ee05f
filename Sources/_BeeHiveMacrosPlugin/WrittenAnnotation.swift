#if Macros
import SwiftDiagnostics
import SwiftSyntax

/// An annotation as written (an attribute, `@BeeHiveService(…)`, or a freestanding macro, `#BeeHiveService(…)`) and
/// its service argument, which a fix-it rewrites: one annotation for each protocol of a composition.
struct WrittenAnnotation {
    /// The attribute or the freestanding macro.
    let node: Syntax
    /// The service argument, inside `node`.
    let argument: ExprSyntax

    /// The annotation's text, without its leading and trailing trivia, with the service argument replaced by `text`.
    func replacingArgument(with text: String) -> String {
        let start = node.positionAfterSkippingLeadingTrivia.utf8Offset
        let written = Array(node.trimmedDescription.utf8)
        let from = argument.positionAfterSkippingLeadingTrivia.utf8Offset - start
        let to = argument.endPositionBeforeTrailingTrivia.utf8Offset - start
        guard 0 <= from, from <= to, to <= written.count else { return node.trimmedDescription }
        return String(decoding: written[..<from] + Array(text.utf8) + written[to...], as: UTF8.self)
    }

    /// A fix-it that replaces the annotation with one copy for each of `services` (each `P.self`), on lines of their
    /// own at the annotation's indentation; its other arguments are copied.
    func writtenOnce(for services: [String]) -> FixIt {
        let indentation = node.leadingTrivia.pieces.reversed().prefix { !$0.isNewline }.reversed()
            .map { piece -> String in
                var text = ""
                piece.write(to: &text)
                return text
            }.joined()
        let text = services.map(replacingArgument(with:)).joined(separator: "\n" + indentation)
        let replacement = TokenSyntax(.identifier(text), presence: .present)
            .with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia)
        return FixIt(
            message: AnnotationFixIt(message: "register the type once for each protocol"),
            changes: [.replace(oldNode: node, newNode: Syntax(replacement))])
    }
}
#endif
