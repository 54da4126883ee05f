#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// Where an annotation is: its module, its file as `#fileID` gives it (`App/Tracker.swift`) and its line, which the
/// record carries so that every diagnostic about it starts with `App/Tracker.swift:12`.
struct AnnotationSite {
    let module: String
    let file: String
    let line: Int

    /// The site of `node` (the attribute or the freestanding macro).
    ///
    /// - Throws: `AnnotationDiagnostic` (`misplaced`) when the compiler gives no location (never in a real build).
    init(of node: some SyntaxProtocol, in context: some MacroExpansionContext) throws {
        guard let location = context.location(of: node, at: .afterLeadingTrivia, filePathMode: .fileID),
            let file = location.file.as(StringLiteralExprSyntax.self)?.representedLiteralValue,
            let line = location.line.as(IntegerLiteralExprSyntax.self).flatMap({ Int($0.literal.text) })
        else {
            throw AnnotationDiagnostic(
                code: .misplaced, message: "expected the compiler to give the annotation's file and line, found none"
            ).at(node)
        }
        self.file = file
        self.line = line
        self.module = file.split(separator: "/", maxSplits: 1).first.map(String.init) ?? file
    }
}
#endif
