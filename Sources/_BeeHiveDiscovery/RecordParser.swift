internal import _BeeHiveFileFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A scalar value in a record: the JSON subset records use.
///
/// What the fuzzers (`Fuzz/`, a package of their own) check of the record types (this file, `Records.swift`,
/// `RecordSection.swift`, `RecordKind.swift`) is `@_spi(Testing) public`, seen only by modules that import this one
/// with `@_spi(Testing)`; the rest of this target is `package` (Tests/BeeHiveTests/AccessBudgetTests.swift keeps
/// count).
@_spi(Testing) public enum RecordValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case bool(Bool)

    @_spi(Testing) public var description: String {
        switch self {
        case .string(let s): "\"\(s)\""
        case .integer(let i): String(i)
        case .bool(let b): String(b)
        }
    }
}

/// A record, parsed: a bare JSON string or a flat JSON object of scalar values.
@_spi(Testing) public enum ParsedRecord: Sendable, Equatable {
    case string(String)
    case object([RecordField])
}

/// One `"key": value` pair of a record object.
@_spi(Testing) public struct RecordField: Sendable, Hashable {
    @_spi(Testing) public let key: String
    @_spi(Testing) public let value: RecordValue
}

/// Why a record could not be read.
@_spi(Testing) public struct RecordError: Error, Sendable, Hashable {
    /// The kind of problem.
    @_spi(Testing) public enum Kind: Sendable, Hashable {
        /// The bytes are not the JSON the format allows.
        case syntax
        /// A string is not valid UTF-8.
        case invalidUTF8
        /// The record runs to the end of its section without a terminating NUL.
        case unterminated
        /// The JSON is well formed but not a record of the expected shape.
        case shape
    }

    @_spi(Testing) public let kind: Kind
    /// What was expected and what was found.
    @_spi(Testing) public let message: String
    /// The byte offset of the problem within the record, when known.
    @_spi(Testing) public let byteOffset: Int?

    package init(_ kind: Kind, _ message: String, at byteOffset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.byteOffset = byteOffset
    }
}

/// A strict parser for the JSON subset of records: a string, or an object whose values are strings,
/// integers or booleans. It reads the bytes in place and allocates only the strings it returns. Its tokens are
/// `JSONLexer`'s, which the file reader shares; the policy is the record's: text that cannot be represented (an
/// unpaired surrogate escape, invalid UTF-8) and integers beyond 64 bits are errors of the record.
@_spi(Testing) public struct RecordParser {
    private var lexer: JSONLexer

    /// Parses one record.
    @_spi(Testing) public static func parse(_ record: RawRecord) throws(RecordError) -> ParsedRecord {
        guard record.isTerminated else {
            throw RecordError(
                .unterminated,
                "expected a NUL byte after the record; found the end of the section after \(record.bytes.count) bytes",
                at: record.bytes.count)
        }
        return try parse(record.bytes)
    }

    /// Parses `bytes` (without a terminating NUL).
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(RecordError) -> ParsedRecord {
        var parser = RecordParser(bytes: bytes)
        parser.skipWhitespace()
        let result: ParsedRecord
        switch parser.peek {
        case UInt8(ascii: "\""): result = .string(try parser.string())
        case UInt8(ascii: "{"): result = .object(try parser.object())
        default: throw parser.unexpected("a JSON object '{…}' or string '\"…\"'")
        }
        parser.skipWhitespace()
        if !parser.lexer.isAtEnd { throw parser.unexpected("the end of the record") }
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
    package static func parseService(
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
    @_spi(Testing) public static func parseService(_ record: RawRecord) throws(RecordError) -> ServiceRecord {
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

    /// Consumes `text` if the bytes at the cursor are exactly it. Compared here, inlined: a call into the lexer's
    /// module per piece of a record cost ~60 instructions, six times a record.
    @inline(__always)
    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        let start = index
        guard bytes.count - start >= count, let base = bytes.baseAddress,
            memcmp(base + start, text.utf8Start, count) == 0
        else { return false }
        index = start + count
        return true
    }

    /// 1 to 9 decimal digits without a leading zero; nil otherwise.
    private mutating func plainLineNumber() -> Int? { lexer.plainNatural(maximumDigits: 9) }

    /// A string of printable ASCII without escapes; nil (cursor anywhere) otherwise.
    private mutating func plainString() -> String? {
        var none: String?
        return plainString(reusing: &none)
    }

    /// ``plainString()``, returning `last` when the bytes spell it, else remembering the new string in `last`.
    private mutating func plainString(reusing last: inout String?) -> String? {
        guard let slice = lexer.plainString() else { return nil }
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

    private init(bytes: UnsafeRawBufferPointer) { lexer = JSONLexer(bytes, end: "the end") }

    // The cursor is read here, not through the lexer's methods: calls into another module are not inlined, and
    // these run for every byte of structure.
    private var bytes: UnsafeRawBufferPointer { lexer.bytes }

    private var peek: UInt8? { lexer.index < lexer.bytes.count ? lexer.bytes[lexer.index] : nil }

    private var index: Int {
        get { lexer.index }
        set { lexer.index = newValue }
    }

    private func unexpected(_ expected: String) -> RecordError { RecordError(lexer.unexpected(expected)) }

    /// Skips whitespace; the lexer is called only when there may be some (JSON's whitespace bytes are all ≤ 0x20).
    private mutating func skipWhitespace() {
        if let byte = peek, byte <= 0x20 { lexer.skipWhitespace() }
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
            if fields.contains(where: { $0.key.utf8.count == key.utf8.count && $0.key.utf8.elementsEqual(key.utf8) }) {
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

    private mutating func literal(_ word: StaticString, _ value: RecordValue) throws(RecordError) -> RecordValue {
        guard lexer.consume(word) else { throw unexpected("\(word)") }
        return value
    }

    /// A JSON integer: an optional '-', then `0` or digits without a leading zero; -2⁶³ to 2⁶³ - 1.
    private mutating func integer() throws(RecordError) -> Int {
        let number: JSONLexer.Number
        do { number = try lexer.number() } catch { throw RecordError(error) }
        if let integer = number.integer { return integer }
        if !number.isInteger {
            throw RecordError(.syntax, "expected an integer; found a fraction or exponent", at: number.integerEnd)
        }
        throw RecordError(
            .syntax,
            "expected an integer from -9223372036854775808 to 9223372036854775807 (64 bits); found "
                + lexer.excerpt(number.start..<number.end), at: number.start)
    }

    /// Reads a JSON string; the cursor is on its opening quote.
    private mutating func string() throws(RecordError) -> String {
        do { return try lexer.string() } catch { throw RecordError(error) }
    }
}

extension RecordError {
    /// The record error for a JSON lexer's error.
    fileprivate init(_ error: JSONLexerError) {
        switch error.kind {
        case .syntax: self.init(.syntax, error.message, at: error.offset)
        case .invalidUTF8: self.init(.invalidUTF8, error.message, at: error.offset)
        }
    }
}
