/// A strict JSON (RFC 8259) reader for configuration files: linear time, nesting bounded by
/// ``FileReader/maximumDepth``.
///
/// Syntax errors (a missing comma, a leading zero, a control character in a string) fail the file. Values
/// that are well-formed JSON but cannot be represented (an integer beyond 64 bits, a string that is not
/// UTF-8 or holds an unpaired surrogate escape) are ``FileValue/invalid(_:)`` and cost only their entry.
package struct JSONFileReader {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

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

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func error(_ message: String, at offset: Int) -> FileSyntaxError {
        FileSyntaxError(.json, message, at: offset)
    }

    private func unexpected(_ expected: String) -> FileSyntaxError {
        error("expected \(expected); found \(peek.map(FileReader.describe) ?? "the end of the file")", at: index)
    }

    private mutating func skipWhitespace() {
        while let b = peek, FileReader.isWhitespace(b) { index += 1 }
    }

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
        let start = index
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count,
            UnsafeRawBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                UnsafeRawBufferPointer(start: word.utf8Start, count: count))
        else { throw unexpected("a value (an object, array, string, number, true, false or null)") }
        index = start + count
        return value
    }

    private mutating func digits() -> Int {
        let start = index
        while let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    /// A number: an ``FileValue/integer(_:)`` when it has no fraction or exponent and fits in 64 bits.
    private mutating func number() throws(FileSyntaxError) -> FileValue {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw unexpected("a digit") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw error(
                "expected a number without leading zeros (JSON forbids them); found "
                    + "\"\(text(start..<index, limit: 40))\"", at: start)
        }
        var isInteger = true
        if peek == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw unexpected("a digit after the decimal point") }
            isInteger = false
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw unexpected("a digit in the exponent") }
            isInteger = false
        }
        if isInteger {
            if let value = Self.integer(
                UnsafeRawBufferPointer(rebasing: bytes[integerStart..<index]),
                negative: integerStart > start)
            {
                return .integer(value)
            }
            return .invalid("the integer \(text(start..<index, limit: 40)), outside the 64-bit range")
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // The grammar was checked above, so the text is a number Double reads (possibly to ±infinity).
        return .real(Double(text) ?? .nan)
    }

    /// Decimal `digits` as an Int (Int64.min included), or nil beyond 64 bits.
    private static func integer(_ digits: UnsafeRawBufferPointer, negative: Bool) -> Int? {
        guard digits.count <= 19 else { return nil }
        var value = 0
        for digit in digits {
            // Accumulated negatively: the negative range is one larger.
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = shifted.subtractingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            value = next
        }
        if negative { return value }
        let (positive, overflow) = (0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    private func text(_ range: Range<Int>, limit: Int) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[range])
        let text = String(decoding: slice.prefix(limit), as: UTF8.self)
        return slice.count > limit ? text + "… (\(slice.count) characters)" : text
    }

    /// A string; the cursor is on its opening quote.
    private mutating func string() throws(FileSyntaxError) -> FileValue {
        let open = index
        index += 1
        let start = index
        // Fast path: no escapes.
        while let b = peek, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") {
            guard b >= 0x20 else { throw controlByte(b) }
            index += 1
        }
        guard let stop = peek else { throw unterminated(open) }
        if stop == UInt8(ascii: "\"") {
            let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            index += 1
            return FileReader.utf8String(slice, at: start, in: "a string")
        }
        // Slow path: unescape into a buffer.
        var buffer = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        var unpaired: String?
        while true {
            guard let b = peek else { throw unterminated(open) }
            index += 1
            if b == UInt8(ascii: "\"") { break }
            guard b >= 0x20 else {
                index -= 1
                throw controlByte(b)
            }
            guard b == UInt8(ascii: "\\") else {
                buffer.append(b)
                continue
            }
            guard let e = peek else { throw unterminated(open) }
            index += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(e)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                let escape = index - 2
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    let save = index
                    index += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        index = save
                    }
                }
                if let unicode = Unicode.Scalar(scalar) {
                    buffer.append(contentsOf: String(unicode).utf8)
                } else {
                    unpaired = unpaired ?? text(escape..<escape + 6, limit: 6)
                }
            default:
                index -= 2
                throw error(
                    "expected an escape \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX; found "
                        + "\"\\\(Character(Unicode.Scalar(e)))\"", at: index)
            }
        }
        if let unpaired {
            return .invalid("a string with an unpaired surrogate escape \(unpaired)", isUTF8Problem: true)
        }
        return buffer.withUnsafeBytes { FileReader.utf8String($0, at: start, in: "a string") }
    }

    private mutating func hex4() throws(FileSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = peek?.digitValue(radix: 16) else { throw unexpected("a hex digit") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func controlByte(_ byte: UInt8) -> FileSyntaxError {
        error(
            "expected a character or an escape in a string; found control byte 0x\(String(byte, radix: 16))", at: index)
    }

    private func unterminated(_ open: Int) -> FileSyntaxError {
        error("expected '\"' to close the string opened at byte \(open); found the end of the file", at: index)
    }
}
