#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The tokens of JSON (RFC 8259), read in place from a buffer: whitespace, strings (every escape, surrogate pairs,
/// control bytes, unterminated strings, UTF-8), numbers (the leading-zero rule, the 64-bit integer range) and
/// literals. BeeHive's two JSON readers share it: ``JSONFileReader`` (any JSON, a value that cannot be represented
/// costs its entry) and the record parser (a string or a flat object of scalars, strict).
///
/// The lexer knows no grammar above a token and no policy: it reports a string's unpaired surrogate escape or
/// invalid UTF-8 as a ``Text`` case and an integer beyond 64 bits as a ``Number`` without an integer value; each
/// reader decides whether that is an error or a value. Syntax errors are ``JSONLexerError``s, whose messages say
/// what was expected, what was found and where; the readers wrap them in their own error types.
///
/// Every method works in time linear in the bytes it consumes and allocates only the strings it returns.
package struct JSONLexer {
    /// The input.
    package let bytes: UnsafeRawBufferPointer
    /// The cursor: the offset of the next byte to read.
    package var index: Int
    /// How messages name the end of the input ("the end", "the end of the file").
    let end: String

    /// A lexer at the start of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The input.
    ///   - end: How messages name the end of the input, as in "expected ','; found the end of the file".
    package init(_ bytes: UnsafeRawBufferPointer, end: String) {
        self.bytes = bytes
        self.index = 0
        self.end = end
    }

    /// The byte at the cursor, or `nil` at the end.
    package var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Whether the cursor is at the end of the input.
    package var isAtEnd: Bool { index >= bytes.count }

    /// Skips JSON's whitespace: space, tab, line feed, carriage return.
    package mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    /// Consumes `text` if the bytes at the cursor spell it exactly (a literal, or a fixed piece of a record).
    ///
    /// - Returns: Whether `text` was there; when not, the cursor has not moved.
    package mutating func consume(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard count > 0 else { return true }
        guard bytes.count - index >= count, let base = bytes.baseAddress,
            memcmp(base + index, text.utf8Start, count) == 0
        else { return false }
        index += count
        return true
    }

    // MARK: - Fast paths

    /// The contents of a string of printable ASCII without escapes, in place; the cursor is on its opening
    /// quote and moves past its closing one.
    ///
    /// - Returns: The bytes between the quotes, or `nil` (the cursor anywhere) when the cursor is not on such a
    ///   string; ``string()`` then reads it, or says what is wrong.
    package mutating func plainString() -> UnsafeRawBufferPointer? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        let end = plainRun(from: start, stoppingAtNonASCII: true).end
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        index = end + 1
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// Where the text of a string that starts at `start` stops being plain: the offset of its first quote,
    /// backslash or control byte (with `stoppingAtNonASCII`, of 0x80 or more too), or the end of the input; and
    /// whether a byte of 0x80 or more lies before it. Read eight bytes at a time.
    @inline(__always)
    func plainRun(from start: Int, stoppingAtNonASCII: Bool) -> (end: Int, hasNonASCII: Bool) {
        guard let base = bytes.baseAddress else { return (start, false) }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // The bytes of `value` below `byte`, each marked by its high bit: the lowest mark is exact, the ones above it
        // may be a borrow's.
        func below(_ value: UInt64, _ byte: UInt64) -> UInt64 { (value &- ones &* byte) & ~value & highs }
        let count = bytes.count
        var offset = start
        var seen: UInt64 = 0
        while offset + 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            var stops = below(word, 0x20) | below(word ^ (ones &* 0x22), 1) | below(word ^ (ones &* 0x5C), 1)
            if stoppingAtNonASCII { stops |= word & highs }
            guard stops == 0 else {
                let plain = stops.trailingZeroBitCount / 8
                seen |= word & ((1 &<< (8 * UInt64(plain))) &- 1)
                return (offset + plain, seen & highs != 0)
            }
            seen |= word
            offset += 8
        }
        while offset < count {
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if stoppingAtNonASCII && byte >= 0x80 { break }
            seen |= UInt64(byte)
            offset += 1
        }
        return (offset, seen & highs != 0)
    }

    /// A positive integer of 1 to `maximumDigits` decimal digits without a leading zero (a line number).
    ///
    /// - Returns: The value, or `nil` (the cursor anywhere) when the cursor is not on such digits. The cursor stops
    ///   after `maximumDigits` digits even if more follow.
    package mutating func plainNatural(maximumDigits: Int) -> Int? {
        let start = index
        var value = 0
        while index < bytes.count, index - start < maximumDigits {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            if index == start && digit == 0 { return nil }
            value = value * 10 + Int(digit)
            index += 1
        }
        return index > start ? value : nil
    }

    // MARK: - Messages

    /// What is at the cursor, for a message: `'x'` for printable ASCII, `byte 0x..` otherwise, or the end.
    package var found: String { peek.map(FileReader.describe) ?? end }

    /// The error "expected `expected`; found …" at the cursor.
    package func unexpected(_ expected: String) -> JSONLexerError {
        JSONLexerError(.syntax, "expected \(expected); found \(found)", at: index)
    }

    /// The bytes of `range` as text for a message: at most 40, then how many there are.
    package func excerpt(_ range: Range<Int>) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[range])
        let text = String(decoding: slice.prefix(40), as: UTF8.self)
        return slice.count > 40 ? text + "… (\(slice.count) characters)" : text
    }
}
