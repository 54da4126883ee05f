/// A JSON syntax error found by ``JSONLexer``: what was expected, what was found, and where.
package struct JSONLexerError: Error, Sendable, Hashable {
    /// The kind of problem.
    package enum Kind: Sendable, Hashable {
        /// The bytes are not JSON.
        case syntax
        /// A string is not valid UTF-8 (only from ``JSONLexer/string()``, which treats it as an error).
        case invalidUTF8
    }

    /// The kind of problem.
    package let kind: Kind
    /// What was expected and what was found.
    package let message: String
    /// The byte offset of the problem in the lexer's input.
    package let offset: Int

    /// An error of `kind` at `offset`.
    package init(_ kind: Kind, _ message: String, at offset: Int) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }
}
