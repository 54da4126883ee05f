/// A strict JSON (RFC 8259) reader for configuration files: linear time, nesting bounded by
/// ``FileReader/maximumDepth``. Its tokens are ``JSONLexer``'s, which the record parser shares.
///
/// Syntax errors (a missing comma, a leading zero, a control character in a string) fail the file. Values
/// that are well-formed JSON but cannot be represented (an integer beyond 64 bits, a string that is not
/// UTF-8 or holds an unpaired surrogate escape) are ``FileValue/invalid(_:)`` and cost only their entry.
package struct JSONFileReader {
    private var lexer: JSONLexer

    private init(_ bytes: UnsafeRawBufferPointer) { lexer = JSONLexer(bytes, end: "the end of the file") }

    /// Reads a whole JSON file (an optional UTF-8 byte-order mark, one value, whitespace).
    package static func read(_ bytes: UnsafeRawBufferPointer) throws(FileSyntaxError) -> FileValue {
        var reader = JSONFileReader(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.unexpected("the end of the file after the value") }
        return value
    }

    private var peek: UInt8? { lexer.peek }

    private var index: Int {
        get { lexer.index }
        set { lexer.index = newValue }
    }

    private func error(_ message: String, at offset: Int) -> FileSyntaxError {
        FileSyntaxError(.json, message, at: offset)
    }

    private func error(_ error: JSONLexerError) -> FileSyntaxError {
        FileSyntaxError(.json, error.message, at: error.offset)
    }

    private func unexpected(_ expected: String) -> FileSyntaxError { error(lexer.unexpected(expected)) }

    private mutating func skipWhitespace() { lexer.skipWhitespace() }

    /// A value whose containers sit at `depth` + 1.
    private mutating func value(depth: Int) throws(FileSyntaxError) -> FileValue {
        switch peek ?? 0 {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw unexpected("a value (an object, array, string, number, true, false or null)")
        }
    }

    private func checkDepth(_ depth: Int) throws(FileSyntaxError) {
        guard depth <= FileReader.maximumDepth else {
            throw error(
                "expected arrays and objects nested at most \(FileReader.maximumDepth) levels deep; "
                    + "found level \(depth)", at: index)
        }
    }

    private mutating func array(depth: Int) throws(FileSyntaxError) -> FileValue {
        try checkDepth(depth)
        index += 1
        var elements: [FileValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw unexpected("',' or ']' in the array")
            }
        }
    }

    private mutating func object(depth: Int) throws(FileSyntaxError) -> FileValue {
        try checkDepth(depth)
        index += 1
        var fields: [FileField] = []
        var badKey: InvalidFileValue?
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return .dictionary(fields)
        }
        // Room for a registration's keys (service, impl, name, rank, properties): one allocation, not three.
        fields.reserveCapacity(5)
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw unexpected("a key in double quotes") }
            let key = try string()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw unexpected("':' after the key") }
            index += 1
            skipWhitespace()
            let value = try value(depth: depth)
            switch key {
            case .string(let key): fields.append(FileField(key: key, value: value))
            case .invalid(let invalid): badKey = badKey ?? invalid
            default: break
            }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                guard let badKey else { return .dictionary(fields) }
                return .invalid("an object whose key is \(badKey.found)", isUTF8Problem: badKey.isUTF8Problem)
            default: throw unexpected("',' or '}' in the object")
            }
        }
    }

    private mutating func literal(_ word: StaticString, _ value: FileValue) throws(FileSyntaxError) -> FileValue {
        guard lexer.consume(word) else {
            throw unexpected("a value (an object, array, string, number, true, false or null)")
        }
        return value
    }

    /// A number: an ``FileValue/integer(_:)`` when it has no fraction or exponent and fits in 64 bits.
    private mutating func number() throws(FileSyntaxError) -> FileValue {
        let number: JSONLexer.Number
        do { number = try lexer.number() } catch { throw self.error(error) }
        if let integer = number.integer { return .integer(integer) }
        let range = number.start..<number.end
        if number.isInteger { return .invalid("the integer \(lexer.excerpt(range)), outside the 64-bit range") }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: lexer.bytes[range]), as: UTF8.self)
        // The lexer checked the grammar, so the text is a number Double reads, possibly to ±infinity: a number
        // beyond the range of a 64-bit float costs the entry that holds it, like an integer beyond 64 bits.
        let real = Double(text) ?? .nan
        if real.isInfinite { return .invalid("the number \(lexer.excerpt(range)), beyond the 64-bit float range") }
        // Beyond 2^53 a float does not hold every integer: an integer written with a fraction or an exponent
        // (`-922337203685477582.0`) is read from its digits, as the number the file says.
        if real.magnitude >= 0x1p53, real.magnitude <= 0x1p63, let exact = exactInteger(number) {
            return .integer(exact)
        }
        return .real(real)
    }

    /// The value of `number` (which has a fraction or an exponent) when it is an integer of the 64-bit range,
    /// computed from its digits; nil otherwise.
    private func exactInteger(_ number: JSONLexer.Number) -> Int? {
        let bytes = lexer.bytes
        let negative = bytes[number.start] == UInt8(ascii: "-")
        // The significant digits (integer part and fraction) and the power of ten they are scaled by.
        var digits = Array(bytes[(negative ? number.start + 1 : number.start)..<number.integerEnd])
        var index = number.integerEnd
        if index < number.end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < number.end, bytes[index] &- UInt8(ascii: "0") < 10 {
                digits.append(bytes[index])
                index += 1
            }
        }
        var scale = number.integerEnd - index + (index > number.integerEnd ? 1 : 0)
        if index < number.end {  // the exponent, after "e" and an optional sign
            index += 1
            let negativeExponent = bytes[index] == UInt8(ascii: "-")
            if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            var exponent = 0
            while index < number.end {
                exponent = min(exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0")), 1 << 20)
                index += 1
            }
            scale += negativeExponent ? -exponent : exponent
        }
        if scale < 0 {
            guard -scale <= digits.count, digits.suffix(-scale).allSatisfy({ $0 == UInt8(ascii: "0") }) else {
                return nil
            }
            digits.removeLast(-scale)
            scale = 0
        }
        var value = IntegerAccumulator()
        for digit in digits + [UInt8](repeating: UInt8(ascii: "0"), count: min(scale, 20)) {
            value.append(Int(digit &- UInt8(ascii: "0")))
            if value.overflowed { return nil }
        }
        return value.value(negative: negative)
    }

    /// A string; the cursor is on its opening quote.
    private mutating func string() throws(FileSyntaxError) -> FileValue {
        let text: JSONLexer.Text
        do { text = try lexer.text() } catch { throw self.error(error) }
        switch text {
        case .string(let string): return .string(string)
        case .unpairedSurrogate(let escape, _):
            return .invalid("a string with an unpaired surrogate escape \(escape)", isUTF8Problem: true)
        case .invalidUTF8(let byte, let offset):
            return .invalid(
                "a string that is not valid UTF-8 (byte 0x\(String(byte, radix: 16)) at offset \(offset))",
                isUTF8Problem: true)
        }
    }
}
