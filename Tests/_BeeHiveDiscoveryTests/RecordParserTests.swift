import Testing
@_spi(Testing) import _BeeHiveDiscovery

/// Parses `text` (without its NUL) as a record.
func parse(_ text: String) throws(RecordError) -> ParsedRecord { try parseBytes(Array(text.utf8)) }

func parseBytes(_ bytes: [UInt8]) throws(RecordError) -> ParsedRecord {
    let result = bytes.withUnsafeBytes { buffer in Result { () throws(RecordError) in try RecordParser.parse(buffer) } }
    return try result.get()
}

@Suite("Record parser")
struct RecordParserTests {
    struct Good: Sendable, CustomStringConvertible {
        let text: String
        let service: ServiceRecord
        var description: String { text }
    }

    @Test(
        "service records in both forms",
        arguments: [
            Good(text: #"{"App.P":"App.I"}"#, service: ServiceRecord(service: "App.P", implementation: "App.I")),
            Good(text: #" { "App.P" : "App.I" } "#, service: ServiceRecord(service: "App.P", implementation: "App.I")),
            Good(
                text: #"{"service":"App.P","impl":"App.I","name":"fast"}"#,
                service: ServiceRecord(service: "App.P", implementation: "App.I", name: "fast")),
            Good(
                text: #"{"impl":"App.I","service":"App.P"}"#,
                service: ServiceRecord(service: "App.P", implementation: "App.I")),
            Good(text: #"{"service":"App.I"}"#, service: ServiceRecord(service: "service", implementation: "App.I")),
            Good(
                text: #"{"App.\u00e9":"App.\"Q\""}"#,
                service: ServiceRecord(service: "App.é", implementation: "App.\"Q\"")),
            Good(text: #"{"App.\ud83d\ude00":"I"}"#, service: ServiceRecord(service: "App.😀", implementation: "I")),
            Good(text: #"{"模块.服务":"模块.实现"}"#, service: ServiceRecord(service: "模块.服务", implementation: "模块.实现")),
        ])
    func goodServices(_ good: Good) throws {
        #expect(try ServiceRecord(parse(good.text)) == good.service)
    }

    struct Bad: Sendable, CustomStringConvertible {
        let text: String
        let kind: RecordError.Kind
        let message: String
        var description: String { text }
    }

    @Test(
        "malformed service records say what was expected and where",
        arguments: [
            Bad(
                text: #"{"App.P" "App.I"}"#, kind: .syntax, message: "expected ':' after the key \"App.P\"; found '\"'"),
            Bad(text: #"{"App.P":"App.I""#, kind: .syntax, message: "expected ',' or '}'; found the end"),
            Bad(text: #"{"App.P":"App.I"} x"#, kind: .syntax, message: "expected the end of the record; found 'x'"),
            Bad(text: #"["App.P"]"#, kind: .syntax, message: "expected a JSON object"),
            Bad(text: #"{"App.P":1.5}"#, kind: .syntax, message: "expected an integer; found a fraction"),
            Bad(text: #"{"App.P":null}"#, kind: .syntax, message: "expected a string, an integer, true or false"),
            Bad(text: #"{"a":"b","c":"d"}"#, kind: .shape, message: "found an object with 2 keys"),
            Bad(text: #"{}"#, kind: .shape, message: "found an object with 0 keys"),
            Bad(text: #"{"a":"b","a":"c"}"#, kind: .shape, message: "found \"a\" twice"),
            Bad(text: #"{"impl":"X"}"#, kind: .shape, message: "expected a \"service\" key"),
            Bad(text: #"{"service":"P","impl":"X","colour":"red"}"#, kind: .shape, message: "found \"colour\""),
            Bad(text: #"{"P":""}"#, kind: .shape, message: "expected a type name"),
            Bad(text: #"{"P":7}"#, kind: .shape, message: "expected a type name string"),
            Bad(text: #""App.P""#, kind: .shape, message: "found a bare string"),
            Bad(text: #"{"a\q":"b"}"#, kind: .syntax, message: "expected one of"),
        ])
    func badServices(_ bad: Bad) {
        do throws(RecordError) {
            _ = try ServiceRecord(parse(bad.text))
            Issue.record("parsed \(bad.text)")
        } catch {
            #expect(error.kind == bad.kind)
            #expect(error.message.contains(bad.message), "\(error.message)")
        }
    }

    static let allServiceTexts: [String] = [
        #"{"App.P":"App.I"}"#, #" { "App.P" : "App.I" } "#, #"{"service":"App.P","impl":"App.I","name":"fast"}"#,
        #"{"service":"App.I"}"#, #"{"impl":"X"}"#, #"{"App.\u00e9":"I"}"#, #"{"模块.服务":"模块.实现"}"#, #"{"P":""}"#,
        #"{"":"I"}"#, #"{"P":7}"#, #"{"a":"b","c":"d"}"#, #"{"App.P" "App.I"}"#, #"{"App.P":"App.I"} "#,
        #"{"App.P":"App.I"}x"#, #"{"a\tb":"c"}"#, "{\"a\u{1}\":\"b\"}", #""App.P""#, #"[]"#, "",
    ]

    @Test("the fast path for BeeHive's one-pair form agrees with the general parser", arguments: allServiceTexts)
    func fastPathAgrees(_ text: String) {
        let bytes = Array(text.utf8) + [0]
        bytes.withUnsafeBytes { buffer in
            let record =
                RecordSection(imagePath: "t", sectionName: "s", kind: .services, bytes: buffer).records.first
                ?? RawRecord(offset: 0, bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<0]), isTerminated: true)
            let fast = Result { () throws(RecordError) in try RecordParser.parseService(record) }
            let general = Result { () throws(RecordError) in try ServiceRecord(RecordParser.parse(record)) }
            #expect(fast == general, "\(text)")
        }
    }

    @Test("invalid UTF-8 is reported with the offset of the bad byte")
    func invalidUTF8() {
        let bytes = Array(#"{"App.P":"App."#.utf8) + [0xFF, 0xFE] + Array(#"I"}"#.utf8)
        #expect {
            try parseBytes(bytes)
        } throws: { error in
            guard let error = error as? RecordError else { return false }
            return error.kind == .invalidUTF8 && error.byteOffset == 14 && error.message.contains("0xff")
        }
    }

    @Test("module records: bare name, and object with level, priority and async")
    func modules() throws {
        #expect(try ModuleRecord(parse(#""App.Login""#)) == ModuleRecord(module: "App.Login"))
        #expect(
            try ModuleRecord(parse(#"{"module":"App.Net","level":"basic","priority":-5,"async":true}"#))
                == ModuleRecord(module: "App.Net", level: .named("basic"), priority: -5, isAsync: true))
        #expect(try ModuleRecord(parse(#"{"module":"App.Net","level":2}"#)).level == .number(2))
        #expect(throws: RecordError.self) { try ModuleRecord(parse(#"{"module":"App.Net","priority":"high"}"#)) }
        #expect(throws: RecordError.self) { try ModuleRecord(parse(#"{"level":1}"#)) }
    }

    @Test("route records")
    func routes() throws {
        #expect(
            try RouteRecord(parse(#"{"route":"app://user/:id","handler":"App.UserRoute"}"#))
                == RouteRecord(pattern: "app://user/:id", handler: "App.UserRoute"))
        #expect(throws: RecordError.self) { try RouteRecord(parse(#"{"route":"app://x"}"#)) }
    }

    @Test("integers that do not fit are rejected, not wrapped")
    func overflow() {
        #expect(throws: RecordError.self) { try parse(#"{"module":"M","priority":99999999999999999999}"#) }
    }

    struct Integer: Sendable, CustomStringConvertible {
        let text: String
        /// The value, or the message of the error.
        let result: Result<Int?, RecordError>
        var description: String { text }

        init(_ text: String, _ value: Int) {
            self.text = text
            self.result = .success(value)
        }

        init(_ text: String, error message: String) {
            self.text = text
            self.result = .failure(RecordError(.syntax, message, at: 25))
        }
    }

    @Test(
        "integers are JSON's: the whole 64-bit range, no leading zeros",
        arguments: [
            Integer("-9223372036854775808", Int.min), Integer("9223372036854775807", Int.max), Integer("0", 0),
            Integer("-0", 0), Integer("10", 10),
            Integer("007", error: #"expected a number without leading zeros (JSON forbids them); found "007""#),
            Integer("-01", error: #"expected a number without leading zeros (JSON forbids them); found "-01""#),
            Integer("00", error: #"expected a number without leading zeros (JSON forbids them); found "00""#),
            Integer(
                "-9223372036854775809",
                error: "expected an integer from -9223372036854775808 to 9223372036854775807 (64 bits); found "
                    + "-9223372036854775809"),
            Integer(
                "9223372036854775808",
                error: "expected an integer from -9223372036854775808 to 9223372036854775807 (64 bits); found "
                    + "9223372036854775808"),
        ])
    func integers(_ integer: Integer) {
        let text = #"{"module":"M","priority":\#(integer.text)}"#
        let result = Result { () throws(RecordError) in try ModuleRecord(parse(text)).priority }
        #expect(result == integer.result, "\(text)")
    }

    @Test("keys compare by UTF-8 bytes: NFC and NFD spellings are two keys, not a repeated one")
    func keysAreBytes() throws {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301): equal as Swift strings, different bytes.
        let parsed = try parse(#"{"\u00e9":"a","e\u0301":"b"}"#)
        guard case .object(let fields) = parsed else {
            Issue.record("parsed as \(parsed)")
            return
        }
        #expect(fields.map(\.key) == ["\u{E9}", "e\u{301}"])
        #expect(fields.map { Array($0.key.utf8) } == [[0xC3, 0xA9], [0x65, 0xCC, 0x81]])

        // The same bytes twice, whether escaped or not, are a repeated key.
        #expect {
            try parse(#"{"\u00e9":"a","é":"b"}"#)
        } throws: { error in
            (error as? RecordError)?.message == #"expected each key once; found "é" twice"#
        }
    }
}

@Suite("Record sections")
struct RecordSectionTests {
    func records(_ bytes: [UInt8]) -> [(Int, String, Bool)] {
        bytes.withUnsafeBytes { buffer in
            RecordSection(imagePath: "test", sectionName: "s", kind: .services, bytes: buffer).records.map {
                ($0.offset, String(decoding: $0.bytes, as: UTF8.self), $0.isTerminated)
            }
        }
    }

    @Test("zero padding between records of any length is skipped")
    func padding() {
        let a = Array("a".utf8) + [0] + [UInt8](repeating: 0, count: 14)
        let b = Array(String(repeating: "b", count: 60).utf8) + [0, 0, 0, 0]
        let c = Array(String(repeating: "c", count: 249).utf8) + [0]
        let result = records(a + b + c)
        #expect(result.map(\.0) == [0, 16, 80])
        #expect(result.map(\.1.count) == [1, 60, 249])
        #expect(result.allSatisfy { $0.2 })
    }

    @Test("a record running to the end of the section is unterminated")
    func unterminated() {
        let result = records(Array("ok".utf8) + [0] + Array("tail".utf8))
        #expect(result.count == 2)
        #expect(result[1].0 == 3 && result[1].1 == "tail" && !result[1].2)
    }

    @Test("an empty or all-zero section has no records")
    func empty() {
        #expect(records([]).isEmpty)
        #expect(records([0, 0, 0, 0]).isEmpty)
    }
}
