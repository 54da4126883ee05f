extension JSONLexer {
    /// A JSON number as read: where it is, and its value when it is an integer of the 64-bit range.
    package struct Number: Sendable, Hashable {
        /// The offset of its first byte (the sign or a digit).
        package let start: Int
        /// The offset after the digits of its integer part: where a fraction or an exponent starts.
        package let integerEnd: Int
        /// The offset after its last byte.
        package let end: Int
        /// The value, when the number is an integer (no fraction, no exponent) from -2⁶³ to 2⁶³ - 1.
        package let integer: Int?

        /// Whether the number has neither a fraction nor an exponent (whatever its size).
        package var isInteger: Bool { integerEnd == end }
    }

    /// Reads a number: an optional `-`, then `0` or digits without a leading zero, then an optional fraction and
    /// exponent. The cursor is on its first byte and moves past its last.
    ///
    /// - Throws: ``JSONLexerError`` (syntax) for a leading zero or a missing digit.
    package mutating func number() throws(JSONLexerError) -> Number {
        let start = index
        let negative = peek == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        var value = IntegerAccumulator()
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value.append(Int(digit))
            index += 1
        }
        guard index > digitsStart else { throw unexpected("a digit") }
        if index - digitsStart > 1, bytes[digitsStart] == UInt8(ascii: "0") {
            throw JSONLexerError(
                .syntax,
                "expected a number without leading zeros (JSON forbids them); found \"\(excerpt(start..<index))\"",
                at: start)
        }
        let integerEnd = index
        if peek == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() else { throw unexpected("a digit after the decimal point") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() else { throw unexpected("a digit in the exponent") }
        }
        let integer = index != integerEnd ? nil : value.value(negative: negative)
        return Number(start: start, integerEnd: integerEnd, end: index, integer: integer)
    }

    /// Skips decimal digits; whether there was one.
    private mutating func skipDigits() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index > start
    }
}
