extension JSONLexer {
    /// A JSON string as read: its text, or why the text cannot be represented.
    package enum Text: Sendable, Hashable {
        /// The string's text.
        case string(String)
        /// The string holds a surrogate escape that is not half of a pair (`"\ud800"`): well-formed JSON, but not
        /// Unicode text. `escape` is the first such escape as written, at byte `offset`.
        case unpairedSurrogate(escape: String, offset: Int)
        /// The string's bytes, escapes decoded, are not UTF-8: `byte` is the first bad one, at about `offset` (exact
        /// for a string without escapes).
        case invalidUTF8(byte: UInt8, offset: Int)
    }

    /// Reads a string strictly: text that cannot be represented is an error.
    ///
    /// The cursor is on the opening quote and moves past the closing one.
    ///
    /// - Returns: The string's text.
    /// - Throws: ``JSONLexerError``: a syntax error for what ``text()`` throws and for an unpaired surrogate escape;
    ///   ``JSONLexerError/Kind/invalidUTF8`` for bytes that are not UTF-8.
    package mutating func string() throws(JSONLexerError) -> String {
        switch try text() {
        case .string(let string): return string
        case .unpairedSurrogate(let escape, let offset):
            throw JSONLexerError(
                .syntax,
                "expected a high surrogate escape followed by a low one; found the unpaired surrogate escape "
                    + escape, at: offset)
        case .invalidUTF8(let byte, let offset):
            throw JSONLexerError(
                .invalidUTF8, "expected UTF-8 text in a string; found invalid byte 0x\(String(byte, radix: 16))",
                at: offset)
        }
    }

    /// Reads a string: its text, or why the text cannot be represented (the caller decides what that costs).
    ///
    /// The cursor is on the opening quote and moves past the closing one. Every escape of RFC 8259 is decoded; a
    /// high surrogate escape followed by a low one is one character.
    ///
    /// - Throws: ``JSONLexerError`` (syntax) for a control byte, an unknown escape, a `\u` without four hex digits,
    ///   or a string that runs to the end of the input.
    package mutating func text() throws(JSONLexerError) -> Text {
        let open = index
        let start = index + 1
        let run = plainRun(from: start, stoppingAtNonASCII: false)
        index = run.end
        guard index < bytes.count else { throw unterminated(open) }
        let byte = bytes[index]
        guard byte >= 0x20 else { throw controlByte(byte) }
        guard byte == UInt8(ascii: "\"") else { return try escapedText(open: open, start: start) }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        index += 1
        if !run.hasNonASCII {
            return .string(String(decoding: slice.assumingMemoryBound(to: UInt8.self), as: UTF8.self))
        }
        return Self.utf8Text(slice, at: start)
    }

    /// The rest of a string with escapes, from the first backslash: decoded into a buffer.
    private mutating func escapedText(open: Int, start: Int) throws(JSONLexerError) -> Text {
        var buffer = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        var unpaired: (escape: String, offset: Int)?
        while true {
            guard index < bytes.count else { throw unterminated(open) }
            let byte = bytes[index]
            guard byte >= 0x20 else { throw controlByte(byte) }
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            guard byte == UInt8(ascii: "\\") else {
                buffer.append(byte)
                continue
            }
            guard index < bytes.count else { throw unterminated(open) }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                let escapeStart = index - 2
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    let next = index
                    index += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        index = next  // not a pair: the next escape stands on its own
                    }
                }
                if let unicode = Unicode.Scalar(scalar) {
                    UTF8.encode(unicode) { buffer.append($0) }
                } else if unpaired == nil {
                    let text = UnsafeRawBufferPointer(rebasing: bytes[escapeStart..<escapeStart + 6])
                    unpaired = (String(decoding: text, as: UTF8.self), escapeStart)
                }
            default:
                index -= 2
                let found =
                    escape >= 0x20 && escape < 0x7F
                    ? "\"\\\(Character(Unicode.Scalar(escape)))\"" : "'\\' followed by \(FileReader.describe(escape))"
                throw JSONLexerError(
                    .syntax, "expected one of the escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX; found \(found)",
                    at: index)
            }
        }
        if let unpaired { return .unpairedSurrogate(escape: unpaired.escape, offset: unpaired.offset) }
        return buffer.withUnsafeBytes { Self.utf8Text($0, at: start) }
    }

    /// Four hex digits of a `\u` escape.
    private mutating func hex4() throws(JSONLexerError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = peek?.digitValue(radix: 16) else { throw unexpected("a hex digit") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// `bytes` as a string, or where their UTF-8 breaks (offsets from `offset`).
    private static func utf8Text(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Text {
        if let string = String(validating: bytes, as: UTF8.self) { return .string(string) }
        let position = FileReader.validUTF8Prefix(bytes)
        return .invalidUTF8(byte: position < bytes.count ? bytes[position] : 0, offset: offset + position)
    }

    private func controlByte(_ byte: UInt8) -> JSONLexerError {
        JSONLexerError(
            .syntax, "expected a character or an escape in a string; found control byte 0x\(String(byte, radix: 16))",
            at: index)
    }

    private func unterminated(_ open: Int) -> JSONLexerError {
        JSONLexerError(.syntax, "expected '\"' to close the string opened at byte \(open); found \(end)", at: index)
    }
}
