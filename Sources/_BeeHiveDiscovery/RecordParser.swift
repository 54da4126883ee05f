internal import _BeeHiveFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A scalar value in a record: the JSON subset records use.
public enum RecordValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case bool(Bool)

    public var description: String {
        switch self {
        case .string(let s): "\"\(s)\""
        case .integer(let i): String(i)
        case .bool(let b): String(b)
        }
    }
}

/// A record, parsed: a bare JSON string or a flat JSON object of scalar values.
public enum ParsedRecord: Sendable, Equatable {
    case string(String)
    case object([RecordField])
}

/// One `"key": value` pair of a record object.
public struct RecordField: Sendable, Hashable {
    public let key: String
    public let value: RecordValue
}

/// Why a record could not be read.
public struct RecordError: Error, Sendable, Hashable {
    /// The kind of problem.
    public enum Kind: Sendable, Hashable {
        /// The bytes are not the JSON the format allows.
        case syntax
        /// A string is not valid UTF-8.
        case invalidUTF8
        /// The record runs to the end of its section without a terminating NUL.
        case unterminated
        /// The JSON is well formed but not a record of the expected shape.
        case shape
    }

    public let kind: Kind
    /// What was expected and what was found.
    public let message: String
    /// The byte offset of the problem within the record, when known.
    public let byteOffset: Int?

    public init(_ kind: Kind, _ message: String, at byteOffset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.byteOffset = byteOffset
    }
}

/// A strict parser for the JSON subset of records: a string, or an object whose values are strings,
/// integers or booleans. It reads the bytes in place and allocates only the strings it returns.
public struct RecordParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    /// Parses one record.
    public static func parse(_ record: RawRecord) throws(RecordError) -> ParsedRecord {
        guard record.isTerminated else {
            throw RecordError(
                .unterminated,
                "expected a NUL byte after the record; found the end of the section after \(record.bytes.count) bytes",
                at: record.bytes.count)
        }
        return try parse(record.bytes)
    }

    /// Parses `bytes` (without a terminating NUL).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RecordError) -> ParsedRecord {
        var parser = RecordParser(bytes: bytes)
        parser.skipWhitespace()
        let result: ParsedRecord
        switch parser.peek {
        case UInt8(ascii: "\""): result = .string(try parser.string())
        case UInt8(ascii: "{"): result = .object(try parser.object())
        default: throw parser.unexpected("a JSON object '{…}' or string '\"…\"'")
        }
        parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.unexpected("the end of the record") }
        return result
    }

    /// Parses a service record, with a fast path for BeeHive's form `{"<service>":"<impl>"}`.
    ///
    /// Same results and errors as `ServiceRecord(try parse(record))`, without building the field list
    /// for the common form.
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - files: The file name of the record before, reused when this record names the same file (the records of
    ///     one section mostly come from a few files): one string per file, not per record.
    public static func parseService(
        _ record: RawRecord, files: inout String?
    ) throws(RecordError) -> ServiceRecord {
        if record.isTerminated {
            var parser = RecordParser(bytes: record.bytes)
            // What the macros of format 2 write first: no BeeHive-form attempt for it.
            if parser.literal("{\"service\":\"") {
                parser.index = 0
                if let fast = parser.explicitServiceRecord(files: &files) { return fast }
            } else if let fast = parser.onePairServiceRecord() {
                return fast
            }
        }
        return try ServiceRecord(parse(record))
    }

    /// Parses a service record (``parseService(_:files:)`` without a file name to reuse).
    public static func parseService(_ record: RawRecord) throws(RecordError) -> ServiceRecord {
        var files: String?
        return try parseService(record, files: &files)
    }

    /// `{"<service>":"<impl>"}` with no whitespace, escapes or non-ASCII bytes, and a key other than
    /// "impl"; nil for anything else (the general parser then reports what is wrong).
    private mutating func onePairServiceRecord() -> ServiceRecord? {
        guard peek == UInt8(ascii: "{") else { return nil }
        index += 1
        guard let service = plainString(), peek == UInt8(ascii: ":") else { return nil }
        index += 1
        guard let impl = plainString(), peek == UInt8(ascii: "}"), index + 1 == bytes.count else { return nil }
        guard !service.isEmpty, !impl.isEmpty, service != "impl" else { return nil }
        return ServiceRecord(service: service, implementation: impl)
    }

    /// What the C and Swift macros write: `{"service":"…","impl":"…"[,"name":"…"][,"file":"…","line":N]}` in
    /// that order, with no whitespace, escapes or non-ASCII bytes; nil for anything else.
    private mutating func explicitServiceRecord(files: inout String?) -> ServiceRecord? {
        guard literal("{\"service\":"), let service = plainString(), literal(",\"impl\":"),
            let impl = plainString()
        else { return nil }
        var name: String?
        if literal(",\"name\":") {
            guard let n = plainString() else { return nil }
            name = n
        }
        var location: RecordLocation?
        if literal(",\"file\":") {
            guard let file = plainString(reusing: &files), literal(",\"line\":"), let line = plainLineNumber() else {
                return nil
            }
            location = RecordLocation(file: file, line: line)
        }
        guard literal("}"), index == bytes.count, !service.isEmpty, !impl.isEmpty, name?.isEmpty != true,
            location?.file.isEmpty != true
        else { return nil }
        return ServiceRecord(service: service, implementation: impl, name: name, location: location)
    }

    /// Consumes `text` if the bytes at the cursor are exactly it.
    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for i in 0..<count where bytes[index + i] != text.utf8Start[i] { return false }
        index += count
        return true
    }

    /// 1 to 9 decimal digits without a leading zero; nil otherwise.
    private mutating func plainLineNumber() -> Int? {
        let start = index
        var value = 0
        while let b = peek, let digit = b.digitValue(radix: 10), index - start < 9 {
            if index == start && digit == 0 { return nil }
            value = value * 10 + digit
            index += 1
        }
        return index > start ? value : nil
    }

    /// A string of printable ASCII without escapes; nil (cursor anywhere) otherwise.
    private mutating func plainString() -> String? {
        var none: String?
        return plainString(reusing: &none)
    }

    /// ``plainString()``, returning `last` when the bytes spell it, else remembering the new string in `last`.
    private mutating func plainString(reusing last: inout String?) -> String? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        while let b = peek, b != UInt8(ascii: "\"") {
            guard b >= 0x20, b < 0x80, b != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        guard peek == UInt8(ascii: "\"") else { return nil }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        index += 1
        if let last, Self.spells(last, slice) { return last }
        let string = String(decoding: slice.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        last = string
        return string
    }

    /// Whether `string`'s UTF-8 bytes are `bytes`.
    private static func spells(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var string = string
        return string.withUTF8 { utf8 in
            utf8.count == bytes.count
                && (utf8.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, utf8.count) == 0)
        }
    }

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func unexpected(_ expected: String) -> RecordError {
        guard let byte = peek else { return RecordError(.syntax, "expected \(expected); found the end", at: index) }
        let found =
            byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        return RecordError(.syntax, "expected \(expected); found \(found)", at: index)
    }

    private mutating func skipWhitespace() {
        while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(RecordError) {
        guard peek == byte else { throw unexpected(what()) }
        index += 1
    }

    private mutating func object() throws(RecordError) -> [RecordField] {
        try expect(UInt8(ascii: "{"), "'{'")
        var fields: [RecordField] = []
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return fields
        }
        while true {
            skipWhitespace()
            let keyOffset = index
            guard peek == UInt8(ascii: "\"") else { throw unexpected("a key in double quotes") }
            let key = try string()
            // Keys compare by their UTF-8 bytes (String's == would make NFC and NFD spellings equal).
            if fields.contains(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
                throw RecordError(.shape, "expected each key once; found \"\(key)\" twice", at: keyOffset)
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after the key \"\(key)\"")
            skipWhitespace()
            fields.append(RecordField(key: key, value: try scalar()))
            skipWhitespace()
            if peek == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "',' or '}'")
            return fields
        }
    }

    private mutating func scalar() throws(RecordError) -> RecordValue {
        switch peek ?? 0 {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .integer(try integer())
        default: throw unexpected("a string, an integer, true or false")
        }
    }

    private mutating func literal(_ word: String, _ value: RecordValue) throws(RecordError) -> RecordValue {
        let start = index
        for expected in word.utf8 {
            guard peek == expected else {
                index = start
                throw unexpected("\(word)")
            }
            index += 1
        }
        return value
    }

    /// A JSON integer: an optional '-', then `0` or digits without a leading zero; -2⁶³ to 2⁶³ - 1.
    private mutating func integer() throws(RecordError) -> Int {
        let start = index
        let negative = peek == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        // Accumulated negatively: the negative range is one larger, so Int.min fits.
        var value = 0
        var overflow = false
        while let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.subtractingReportingOverflow(Int(b - UInt8(ascii: "0")))
            overflow = overflow || o1 || o2
            value = a
            index += 1
        }
        let digits = index - digitsStart
        if digits == 0 { throw unexpected("a digit") }
        if digits > 1, bytes[digitsStart] == UInt8(ascii: "0") {
            throw RecordError(
                .syntax, "expected an integer without leading zeros (JSON forbids them); found \(text(from: start))",
                at: start)
        }
        if let b = peek, b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
            throw RecordError(.syntax, "expected an integer; found a fraction or exponent", at: index)
        }
        if !negative {
            let (positive, o) = (0).subtractingReportingOverflow(value)
            overflow = overflow || o
            value = positive
        }
        if overflow {
            throw RecordError(
                .syntax,
                "expected an integer from -9223372036854775808 to 9223372036854775807 (64 bits); found "
                    + text(from: start), at: start)
        }
        return value
    }

    /// The bytes from `start` to the cursor, for messages (at most 40, ASCII digits and signs here).
    private func text(from start: Int) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        let text = String(decoding: slice.prefix(40), as: UTF8.self)
        return slice.count > 40 ? "\(text)… (\(slice.count) digits)" : text
    }

    /// Reads a JSON string; the cursor is on its opening quote.
    private mutating func string() throws(RecordError) -> String {
        let open = index
        index += 1
        let start = index
        // Fast path: no escapes.
        var isASCII = true
        while let b = peek, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") {
            isASCII = isASCII && b < 0x80
            if b < 0x20 {
                throw RecordError(
                    .syntax, "expected a character; found control byte 0x\(String(b, radix: 16)) in a string", at: index
                )
            }
            index += 1
        }
        guard let stop = peek else {
            throw RecordError(
                .syntax, "expected '\"' to close the string opened at byte \(open); found the end", at: index)
        }
        if stop == UInt8(ascii: "\"") {
            let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            index += 1
            if isASCII { return String(decoding: slice.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
            return try decodeUTF8(slice, at: start)
        }
        // Slow path: unescape into a buffer.
        var buffer: [UInt8] = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard let b = peek else {
                throw RecordError(
                    .syntax, "expected '\"' to close the string opened at byte \(open); found the end", at: index)
            }
            if b == UInt8(ascii: "\"") {
                index += 1
                break
            }
            if b < 0x20 {
                throw RecordError(
                    .syntax, "expected a character; found control byte 0x\(String(b, radix: 16)) in a string", at: index
                )
            }
            if b != UInt8(ascii: "\\") {
                buffer.append(b)
                index += 1
                continue
            }
            index += 1
            guard let e = peek else { throw unexpected("an escape character") }
            index += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(e)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard peek == UInt8(ascii: "\\") else { throw unexpected("a low surrogate '\\u…'") }
                    index += 1
                    try expect(UInt8(ascii: "u"), "'u' of a low surrogate")
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw RecordError(.syntax, "expected a low surrogate after a high one", at: index - 6)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else {
                    throw RecordError(.syntax, "expected a Unicode scalar; found a lone surrogate", at: index - 6)
                }
                buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                index -= 1
                throw unexpected("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u")
            }
        }
        if let s = String(validating: buffer, as: UTF8.self) { return s }
        throw Self.invalidUTF8(buffer, at: start)
    }

    private mutating func hex4() throws(RecordError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = peek?.digitValue(radix: 16) else { throw unexpected("a hex digit") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func decodeUTF8(_ slice: UnsafeRawBufferPointer, at offset: Int) throws(RecordError) -> String {
        // Decoding repairs invalid sequences with U+FFFD; the bytes are valid if nothing was repaired.
        let bytes = slice.assumingMemoryBound(to: UInt8.self)
        let decoded = String(decoding: bytes, as: UTF8.self)
        if decoded.utf8.elementsEqual(bytes) { return decoded }
        throw Self.invalidUTF8(slice, at: offset)
    }

    /// The error for the first invalid UTF-8 sequence of `bytes`, which start at `offset`.
    private static func invalidUTF8(_ bytes: some Collection<UInt8>, at offset: Int) -> RecordError {
        var position = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): position += UTF8.width(s)
            case .emptyInput, .error: break loop
            }
        }
        let bad = bytes.dropFirst(position).first.map { String($0, radix: 16) } ?? "?"
        return RecordError(
            .invalidUTF8, "expected UTF-8 text in a string; found invalid byte 0x\(bad)", at: offset + position)
    }
}
