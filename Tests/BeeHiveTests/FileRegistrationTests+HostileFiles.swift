import Foundation
import Testing

@testable import BeeHive
@testable import _BeeHiveFileFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes `bytes` to a new temporary file; returns its path.
private func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
}

/// A service file of three entries: two good ones (`T.First`, `T.Last`) around a bad one, in one format.
struct BadValueCase: Sendable, CustomStringConvertible {
    let label: String
    let file: [UInt8]
    /// What the diagnostic of entry 1 must say.
    let message: String
    let code: HiveError.Code
    var description: String { label }

    init(_ label: String, _ file: [UInt8], _ message: String, code: HiveError.Code = .malformedEntry) {
        self.label = label
        self.file = file
        self.message = message
        self.code = code
    }

    /// An XML plist with `entry` (a `<dict>…</dict>` or any element) between two good entries.
    static func xml(
        _ label: String, entry: [UInt8], _ message: String, code: HiveError.Code = .malformedEntry
    ) -> Self {
        func good(_ service: String) -> String {
            "<dict><key>service</key><string>\(service)</string><key>impl</key><string>T.Impl</string></dict>\n"
        }
        let head = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <array>

            """
        let file =
            Array((head + good("T.First")).utf8) + entry + Array(("\n" + good("T.Last") + "</array></plist>").utf8)
        return Self("XML: " + label, file, message, code: code)
    }

    /// An XML plist whose entry 1 is `{service: T.Bad, impl: <impl>}`.
    static func xml(_ label: String, impl: String, _ message: String, code: HiveError.Code = .malformedEntry) -> Self {
        xml(
            label, entry: Array("<dict><key>service</key><string>T.Bad</string><key>impl</key>\(impl)</dict>".utf8),
            message, code: code)
    }

    /// JSON with `entry` between two good entries.
    static func json(
        _ label: String, entry: [UInt8], _ message: String, code: HiveError.Code = .malformedEntry
    ) -> Self {
        let file =
            Array(#"[{"service":"T.First","impl":"T.Impl"},"#.utf8) + entry
            + Array(#",{"service":"T.Last","impl":"T.Impl"}]"#.utf8)
        return Self("JSON: " + label, file, message, code: code)
    }

    /// JSON whose entry 1 is `{"service":"T.Bad","impl":<impl>}`.
    static func json(_ label: String, impl: String, _ message: String, code: HiveError.Code = .malformedEntry) -> Self {
        json(label, entry: Array(#"{"service":"T.Bad","impl":\#(impl)}"#.utf8), message, code: code)
    }

    /// A binary plist whose entry 1 is the object `entry` adds.
    static func binary(
        _ label: String, _ message: String, code: HiveError.Code = .malformedEntry,
        entry: (inout BinaryPropertyListBuilder) -> Int
    ) -> Self {
        var plist = BinaryPropertyListBuilder()
        let first = plist.serviceEntry("T.First", "T.Impl")
        let bad = entry(&plist)
        let last = plist.serviceEntry("T.Last", "T.Impl")
        let top = plist.array([first, bad, last])
        return Self("binary: " + label, plist.file(top: top), message, code: code)
    }

    /// A binary plist whose entry 1 is `{service: T.Bad, impl: <the object given as bytes>}`.
    static func binary(
        _ label: String, impl: [UInt8], _ message: String, code: HiveError.Code = .malformedEntry
    ) -> Self {
        binary(label, message, code: code) { plist in
            let pairs = [(plist.ascii("service"), plist.ascii("T.Bad")), (plist.ascii("impl"), plist.add(impl))]
            return plist.dictionary(pairs)
        }
    }
}

extension FileRegistrationTests {
    @Suite("A bad value costs only its entry")
    struct BadValues {
        static let cases: [BadValueCase] = [
            .xml(
                "<date>", impl: "<date>2024-05-01T12:00:00Z</date>",
                #"expected a non-empty string for "impl"; found a date (2024-05-01T12:00:00Z)"#),
            .xml("<data>", impl: "<data>AAEC</data>", #"expected a non-empty string for "impl"; found data (3 bytes)"#),
            .xml("<real>", impl: "<real>1.5</real>", #"expected a non-empty string for "impl"; found 1.5"#),
            .xml("<true/>", impl: "<true/>", #"expected a non-empty string for "impl"; found true"#),
            .xml("<array/>", impl: "<array/>", #"expected a non-empty string for "impl"; found an array of 0"#),
            .xml("<dict/>", impl: "<dict/>", #"expected a non-empty string for "impl"; found an empty dictionary"#),
            .xml(
                "an <integer> that is not a number", impl: "<integer>12x</integer>",
                #"found an <integer> that is not a number: "12x""#),
            .xml(
                "an <integer> beyond 64 bits", impl: "<integer>9223372036854775808</integer>",
                "found an <integer> outside the 64-bit range: 9223372036854775808"),
            .xml(
                "a <date> that is not a date", impl: "<date>yesterday</date>",
                #"found a <date> that is not YYYY-MM-DDTHH:MM:SSZ: "yesterday""#),
            .xml(
                "<data> that is not base64", impl: "<data>!!!!</data>", #"found a <data> that is not base64: "!!!!""#),
            .xml(
                "an unknown entity", impl: "<string>T.&bogus;</string>",
                #"found a <string> with an unknown or invalid entity reference "&bogus;""#),
            .xml(
                "text that is not UTF-8",
                entry: Array("<dict><key>service</key><string>T.".utf8) + [0xFF]
                    + Array("</string><key>impl</key><string>T.Impl</string></dict>".utf8),
                #"expected a non-empty string for "service"; found a <string> that is not valid UTF-8 (byte 0xff"#,
                code: .invalidUTF8),
            .xml(
                "a repeated key",
                entry: Array(
                    "<dict><key>service</key><string>T.Bad</string><key>impl</key><string>T.A</string><key>impl</key><string>T.B</string></dict>"
                        .utf8),
                #"expected each key once; found "impl" 2 times"#),
            .xml(
                "a key that is not UTF-8",
                entry: Array("<dict><key>service</key><string>T.Bad</string><key>".utf8) + [0xC3, 0x28]
                    + Array("</key><string>x</string></dict>".utf8),
                "expected a dictionary {service, impl[, name, rank, properties]}; found a <dict> whose <key> is text that is not valid "
                    + "UTF-8 (byte 0xc3", code: .invalidUTF8),
            .xml("a bare <string>", entry: Array("<string>T.Bad</string>".utf8), #"found a string "T.Bad""#),

            .json("null", impl: "null", #"expected a non-empty string for "impl"; found null"#),
            .json("a real", impl: "1.5", #"expected a non-empty string for "impl"; found 1.5"#),
            .json("an empty string", impl: #""""#, #"expected a non-empty string for "impl"; found """#),
            .json("an array", impl: #"["T.A"]"#, #"expected a non-empty string for "impl"; found an array of 1"#),
            .json(
                "an integer beyond 64 bits", impl: "99999999999999999999",
                "found the integer 99999999999999999999, outside the 64-bit range"),
            .json(
                "a number beyond the 64-bit float range", impl: "-1.5e999",
                "found the number -1.5e999, beyond the 64-bit float range"),
            .json(
                "an unpaired surrogate escape", impl: #""T.\ud800""#,
                #"found a string with an unpaired surrogate escape \ud800"#, code: .invalidUTF8),
            .json(
                "text that is not UTF-8", entry: Array(#"{"service":"T.Bad","impl":"T."#.utf8) + [0xFE] + [0x22, 0x7D],
                #"expected a non-empty string for "impl"; found a string that is not valid UTF-8 (byte 0xfe"#,
                code: .invalidUTF8),
            .json(
                "a repeated key", entry: Array(#"{"service":"T.Bad","impl":"T.A","impl":"T.A"}"#.utf8),
                #"expected each key once; found "impl" 2 times"#),
            .json(
                "null as the entry", entry: Array("null".utf8),
                "expected a dictionary {service, impl[, name, rank, properties]}; found null"),

            .binary(
                "a date", impl: [0x33] + [UInt8](repeating: 0, count: 8),
                #"expected a non-empty string for "impl"; found a date (2001-01-01T00:00:00Z)"#),
            .binary("data", impl: [0x43, 1, 2, 3], #"expected a non-empty string for "impl"; found data (3 bytes)"#),
            .binary("null", impl: [0x00], #"expected a non-empty string for "impl"; found null"#),
            .binary("a UID", impl: [0x80, 0x05], #"expected a non-empty string for "impl"; found a UID (5)"#),
            .binary(
                "a 128-bit integer", impl: [0x14, 1] + [UInt8](repeating: 0, count: 15),
                "found an integer outside the 64-bit range (a 128-bit integer)"),
            .binary(
                "an unknown marker", impl: [0x90], "found an object of unknown type (marker 0x90)"),
            .binary(
                "an ASCII string with a byte above 0x7f", impl: [0x52, 0x41, 0xE9],
                "found an ASCII string with byte 0xe9 at offset", code: .invalidUTF8),
            .binary(
                "a UTF-16 string with an unpaired surrogate", impl: [0x61, 0xD8, 0x00],
                "found a UTF-16 string with an unpaired surrogate 0xd800", code: .invalidUTF8),
            .binary("a set", #"found a set (property lists hold arrays, not sets)"#) { plist in
                plist.add([0xC1, 0x00, 0x01])
            },
            .binary("a key that is not a string", "found a dictionary whose key is an integer, not a string") {
                plist in
                plist.dictionary([(plist.add([0x10, 0x07]), plist.ascii("T.Bad"))])
            },
            .binary("a repeated key", #"expected each key once; found "service" 2 times"#) { plist in
                plist.dictionary([
                    (plist.ascii("service"), plist.ascii("T.A")), (plist.ascii("service"), plist.ascii("T.B")),
                    (plist.ascii("impl"), plist.ascii("T.Impl")),
                ])
            },
        ]

        @Test(
            "the entries around the bad one are registered; the diagnostic says what, where and why", arguments: cases)
        func badValue(_ bad: BadValueCase) throws {
            let hive = Hive()
            let path = try temporaryFile("BHService", bad.file)
            let problems = try hive.loadServices(from: path)
            #expect(hive.serviceRegistrations.map(\.service) == ["T.First", "T.Last"])
            #expect(hive.serviceRegistrations.map(\.source.entryIndex) == [0, 2])
            #expect(problems.count == 1)
            let problem = try #require(problems.first)
            #expect(problem.code == bad.code)
            #expect(problem.source == .file(path, index: 1))
            #expect(problem.message.contains(bad.message), "\(problem.message)")
            #expect("\(problem.error)".hasPrefix("file \(path), entry 1: "))
        }

        @Test("modules: a null, a date or a wrong type costs its entry; integers may be reals without a fraction")
        func moduleValues() throws {
            let hive = Hive()
            let path = try temporaryFile(
                "BeeHive.json",
                Array(
                    """
                    {"moduleClasses":[
                      {"moduleClass":"T.A","modulePriority":-9223372036854775808},
                      {"moduleClass":"T.B","modulePriority":null},
                      {"moduleClass":"T.C","moduleLevel":2.0,"modulePriority":5.0},
                      {"moduleClass":"T.D","moduleAsync":"yes"},
                      {"moduleClass":"T.E","moduleLevel":1.5}
                    ]}
                    """.utf8))
            let problems = try hive.loadModules(from: path)
            let modules = hive.moduleDeclarations
            #expect(modules.map(\.name) == ["T.A", "T.C"])
            #expect(modules.first?.priority == Int.min)
            #expect(modules.last?.level == .application && modules.last?.priority == 5)
            #expect(problems.map(\.source?.entryIndex) == [1, 3, 4])
            #expect(problems.map(\.code) == [.malformedEntry, .malformedEntry, .malformedEntry])
            #expect(problems[0].message == #"expected an integer for "modulePriority"; found null"#)
            #expect(problems[1].message == #"expected true or false for "moduleAsync"; found "yes""#)
            #expect(problems[2].message.hasPrefix(#"expected a level 0, 1, 2"#) && problems[2].message.hasSuffix("1.5"))
        }

        @Test("modules: an integer beyond 2^53 written with a fraction or an exponent is read from its digits")
        func integralRealsBeyondFloatPrecision() throws {
            let hive = Hive()
            let path = try temporaryFile(
                "BeeHive.json",
                Array(
                    """
                    {"moduleClasses":[
                      {"moduleClass":"T.A","modulePriority":-922337203685477582.0},
                      {"moduleClass":"T.B","modulePriority":9223372036854775.807e3},
                      {"moduleClass":"T.C","modulePriority":922337203685477582.5},
                      {"moduleClass":"T.D","modulePriority":9.3e18}
                    ]}
                    """.utf8))
            let problems = try hive.loadModules(from: path)
            let priorities = hive.moduleDeclarations.map { "\($0.name) \($0.priority)" }
            // A fraction beyond a float's precision is a float's reading, as JSONSerialization's; beyond 64 bits
            // the entry is refused.
            #expect(priorities == ["T.A -922337203685477582", "T.B 9223372036854775807", "T.C 922337203685477632"])
            #expect(problems.map(\.source?.entryIndex) == [3])
        }

        @Test("a binary plist's UTF-16 strings and shared objects load")
        func binaryStrings() throws {
            var plist = BinaryPropertyListBuilder()
            let service = plist.ascii("service")
            let impl = plist.ascii("impl")
            let implName = plist.ascii("T.Impl")
            // "T.Café" as UTF-16; keys and the implementation name are one object each, shared by both entries.
            let cafe = plist.utf16([0x54, 0x2E, 0x43, 0x61, 0x66, 0xE9])
            let first = plist.dictionary([(service, cafe), (impl, implName)])
            let second = plist.dictionary([(service, plist.ascii("T.Tea")), (impl, implName)])
            let hive = Hive()
            let top = plist.array([first, second])
            let problems = try hive.loadServices(from: temporaryFile("BHService.plist", plist.file(top: top)))
            #expect(problems.isEmpty)
            #expect(hive.serviceRegistrations.map(\.service) == ["T.Café", "T.Tea"])
            #expect(hive.serviceRegistrations.map(\.implementation) == ["T.Impl", "T.Impl"])
        }
    }

    @Suite("Hostile structure fails fast with a clear error")
    struct HostileStructure {
        /// Loads `bytes` as a service file and returns the error that rejects it, checking that it came
        /// quickly (a generous bound that catches a hang, not a timing claim).
        func rejection(_ bytes: [UInt8], _ name: String = "BHService") throws -> HiveError? {
            let hive = Hive()
            let path = try temporaryFile(name, bytes)
            let start = ContinuousClock.now
            let error = #expect(throws: HiveError.self) { try hive.loadServices(from: path) }
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(error?.code == .malformedFile)
            #expect(error?.source == .file(path))
            #expect(hive.serviceRegistrations.isEmpty)
            return error
        }

        @Test("a 44-byte binary plist whose array contains itself is a reference cycle")
        func selfContainingArray() throws {
            var plist = BinaryPropertyListBuilder()
            plist.add([0xA1, 0x00, 0x00])  // object 0: an array whose one element is object 0
            let file = plist.file(top: 0)
            #expect(file.count == 44)
            let error = try rejection(file)
            #expect(
                error?.message
                    == "expected an XML or binary property list or JSON; cannot parse it as a binary property list: "
                    + "expected objects that do not contain themselves; found object 0 inside itself, a "
                    + "reference cycle (at byte 8)")
        }

        @Test("a longer cycle (array → dictionary → array) is found too")
        func longerCycle() throws {
            var plist = BinaryPropertyListBuilder()
            plist.add([0xA1, 0x00, 0x01])  // 0: [object 1]
            plist.add([0xD1, 0x00, 0x02, 0x00, 0x00])  // 1: {object 2: object 0}
            plist.add([0x51, 0x6B])  // 2: "k"
            let error = try rejection(plist.file(top: 0))
            #expect(error?.message.contains("found object 0 inside itself, a reference cycle (at byte 8)") == true)
        }

        @Test("a binary plist 2,000 levels deep stops at level 65")
        func deepBinary() throws {
            var plist = BinaryPropertyListBuilder()
            for level in 0..<2_000 { plist.add([0xA1] + BinaryPropertyListBuilder.reference(level + 1)) }
            plist.add([0x51, 0x78])
            let error = try rejection(plist.file(top: 0))
            #expect(
                error?.message.contains(
                    "expected arrays and dictionaries nested at most 64 levels deep; found object 64 reaching "
                        + "level 65 (at byte 200)") == true, "\(error?.message ?? "")")
        }

        @Test("an object shared at every level of a deep binary plist is read once, and its depth counted")
        func sharedObjects() throws {
            // Object n is [n+1, n+1]: read naively, 2^60 paths. The reader reads each object once.
            var plist = BinaryPropertyListBuilder()
            for level in 0..<60 {
                let next = BinaryPropertyListBuilder.reference(level + 1)
                plist.add([0xA2] + next + next)
            }
            plist.add([0x51, 0x78])
            let hive = Hive()
            let start = ContinuousClock.now
            let problems = try hive.loadServices(from: temporaryFile("BHService.plist", plist.file(top: 0)))
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(
                problems.map(\.message)
                    == Array(
                        repeating:
                            "expected a dictionary {service, impl[, name, rank, properties]}; found an array of 2",
                        count: 2))

            // Deeper than the limit only through the shared object: still counted, still an error.
            var deeper = BinaryPropertyListBuilder()
            for level in 0..<70 {
                let next = BinaryPropertyListBuilder.reference(level + 1)
                deeper.add([0xA2] + next + next)
            }
            deeper.add([0x51, 0x78])
            #expect(try rejection(deeper.file(top: 0))?.message.contains("nested at most 64 levels deep") == true)
        }

        @Test("an XML plist 10,000 levels deep stops at level 65, with its line and column")
        func deepXML() throws {
            let file =
                "<plist>" + String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
            let error = try rejection(Array(file.utf8))
            #expect(
                error?.message.hasSuffix(
                    "expected <array> and <dict> nested at most 64 levels deep; found level 65 (at byte 455, line 1, "
                        + "column 456)") == true, "\(error?.message ?? "")")
        }

        @Test("JSON 100,000 levels deep stops at level 65")
        func deepJSON() throws {
            let error = try rejection(Array(String(repeating: "[", count: 100_000).utf8))
            #expect(
                error?.message.hasSuffix(
                    "expected arrays and objects nested at most 64 levels deep; found level 65 (at byte 64, line 1, "
                        + "column 65)") == true, "\(error?.message ?? "")")
        }

        @Test("64 levels of nesting load, in every format")
        func deepestAllowed() throws {
            // The root array holds one entry, which is 62 more levels of arrays: 64 levels in all.
            let json = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
            let xml =
                "<plist>" + String(repeating: "<array>", count: 64) + String(repeating: "</array>", count: 64)
                + "</plist>"
            var plist = BinaryPropertyListBuilder()
            for level in 0..<63 { plist.add([0xA1] + BinaryPropertyListBuilder.reference(level + 1)) }
            plist.add([0xA0])
            for file in [Array(json.utf8), Array(xml.utf8), plist.file(top: 0)] {
                let hive = Hive()
                let problems = try hive.loadServices(from: temporaryFile("BHService", file))
                #expect(
                    problems.map(\.message) == [
                        "expected a dictionary {service, impl[, name, rank, properties]}; found an array of 1"
                    ])
            }
        }

        @Test("a binary plist whose references point outside the file is a clear error")
        func badReference() throws {
            var plist = BinaryPropertyListBuilder()
            plist.add([0xA1, 0x00, 0x07])  // refers to object 7 of 1
            let error = try rejection(plist.file(top: 0))
            #expect(
                error?.message.hasSuffix(
                    "expected object 0 to refer to objects 0 to 0; found a reference to object 7 (at byte 9)") == true,
                "\(error?.message ?? "")")
        }

        @Test("a syntax error names its line and column")
        func syntaxError() throws {
            let error = try rejection(Array("[\n  {\"service\": 007}\n]".utf8), "services.json")
            #expect(
                error?.message
                    == "expected an XML or binary property list or JSON; cannot parse it as JSON: expected a number "
                    + "without leading zeros (JSON forbids them); found \"007\" (at byte 16, line 2, column 15)")
        }

        @Test("an XML end tag is its element's name exactly, then '>'; text reads through references, CDATA, comments")
        func xmlEndTagsAndText() throws {
            func plist(_ entry: String) -> [UInt8] { Array("<plist><array><dict>\(entry)</dict></array></plist>".utf8) }
            let hive = Hive()
            let text = "<key>name</key >\n<string>a&amp;<![CDATA[<b>]]><!-- c -->c</string\t>"
            try hive.loadServices(
                from: try temporaryFile(
                    "text.plist",
                    plist("<key>service</key><string>T.S</string><key>impl</key><string>T.I</string>" + text)))
            #expect(hive.diagnostics.isEmpty, "\(hive.diagnostics)")
            #expect(hive.serviceRegistrations.map(\.name) == ["a&<b>c"])
            for bad in ["</keys>", "</ke>", "</key", "</Key>", "</ key>"] {
                let error = try rejection(plist("<key>service\(bad)<string>T.S</string>"))
                #expect(error?.message.contains("expected </key>; found") == true, "\(bad): \(error?.message ?? "")")
            }
        }

        @Test("a UTF-16 file is refused with the reason")
        func utf16() throws {
            let file: [UInt8] = [0xFF, 0xFE] + "<plist><array/></plist>".utf8.flatMap { [$0, 0] }
            let error = try rejection(file)
            #expect(
                error?.message
                    == "expected an XML or binary property list or JSON; cannot parse it as an XML property list: "
                    + "expected UTF-8 text; found a UTF-16 byte-order mark (save the file as UTF-8) (at byte 0, "
                    + "line 1, column 1)")
        }

        @Test("a UTF-16 or UTF-32 file without a byte-order mark is refused with the reason")
        func utf16WithoutByteOrderMark() throws {
            let utf32: [UInt8] = "[]".utf8.flatMap { [$0, 0, 0, 0] }
            let utf16: [UInt8] = "<plist><array/></plist>".utf8.flatMap { [$0, 0] }
            for (file, format) in [(utf32, "JSON"), (utf16, "an XML property list")] {
                let error = try rejection(file)
                #expect(
                    error?.message
                        == "expected an XML or binary property list or JSON; cannot parse it as \(format): expected "
                        + "UTF-8 text; found a NUL byte at offset 1, as UTF-16 or UTF-32 text without a byte-order "
                        + "mark has (save the file as UTF-8) (at byte 1, line 1, column 2)")
            }
        }

        @Test("an XML plist that declares another encoding than UTF-8 is refused, naming it; UTF-8 and ASCII load")
        func declaredEncoding() throws {
            // "App" and the bytes D8 B9, which Big5 (ms950) reads as one Chinese character and UTF-8 as Arabic.
            let big5: [UInt8] =
                Array("<?xml version=\"1.0\" encoding=\"ms950\"?><plist><array><string>App".utf8) + [0xD8, 0xB9]
                + Array("</string></array></plist>".utf8)
            let error = try rejection(big5)
            #expect(
                error?.message
                    == "expected an XML or binary property list or JSON; cannot parse it as an XML property list: "
                    + "expected a property list in UTF-8; its XML declaration names the encoding \"ms950\" (at byte "
                    + "30). BeeHive reads UTF-8 only: convert the file (iconv -f ms950 -t UTF-8) (at byte 30, line 1, "
                    + "column 31)")
            for encoding in ["UTF-8", "utf8", "US-ASCII"] {
                let file = "<?xml version='1.0' encoding='\(encoding)'?><plist><dict/></plist>"
                let hive = Hive()
                try hive.loadServices(from: try temporaryFile("declared.plist", Array(file.utf8)))
                #expect(hive.diagnostics.isEmpty, "\(encoding): \(hive.diagnostics)")
            }
        }

        @Test("a directory, a FIFO with no writer and /dev/zero fail without hanging")
        func notRegularFiles() throws {
            let hive = Hive()
            let directory = FileManager.default.temporaryDirectory.path
            let notAFile = #expect(throws: HiveError.self) { try hive.loadServices(from: directory) }
            #expect(notAFile?.message == "expected a readable configuration file; found a directory")

            let fifo = FileManager.default.temporaryDirectory.appendingPathComponent(
                "beehive-fifo-\(UUID().uuidString)"
            ).path
            #expect(mkfifo(fifo, 0o600) == 0)
            defer { unlink(fifo) }
            let empty = #expect(throws: HiveError.self) { try hive.loadServices(from: fifo) }
            #expect(empty?.code == .malformedFile)
            #expect(empty?.message.contains("found the end of the file") == true)

            let zero = #expect(throws: HiveError.self) { try hive.loadServices(from: "/dev/zero") }
            #expect(
                zero?.message
                    == "expected a configuration file of at most 4194304 bytes (4 MiB); found more than 4194304 bytes")
        }

        @Test("a 1 MB JSON file of 12,000 entries loads every entry")
        func megabyteJSON() throws {
            var text = "["
            for index in 0..<12_000 {
                text +=
                    #"{"service":"App.Services.Service\#(index)","impl":"App.Implementations.Implementation\#(index)"},"#
                    + "\n"
            }
            text.removeLast(2)
            text += "]"
            #expect(text.utf8.count > 1_000_000)
            let hive = Hive()
            let start = ContinuousClock.now
            let problems = try hive.loadServices(from: temporaryFile("services.json", Array(text.utf8)))
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(problems.isEmpty)
            #expect(hive.serviceRegistrations.count == 12_000)
        }
    }

    @Suite("Keys and numbers follow one rule in files and records")
    struct KeysAndNumbers {
        func read(_ text: String) throws -> FileValue {
            try Array(text.utf8).withUnsafeBytes { buffer in
                try Result { () throws(FileSyntaxError) in try FileReader.read(buffer) }.get()
            }
        }

        @Test("keys compare by UTF-8 bytes: NFC and NFD spellings are two keys, the same bytes twice repeat")
        func keysAreBytes() throws {
            guard case .dictionary(let fields) = try read(#"{"\u00e9":1,"e\u0301":2}"#) else {
                Issue.record("not a dictionary")
                return
            }
            #expect(fields.count == 2)
            #expect(fields.repeatedKey == nil)
            #expect(fields[0].key == fields[1].key)  // Swift's String calls them equal
            guard case .integer(2)? = fields.value(forKey: "e\u{301}") else {
                Issue.record("the NFD key does not find its own value")
                return
            }
            guard case .dictionary(let repeated) = try read(#"{"\u00e9":1,"\u00e9":2}"#) else { return }
            #expect(repeated.repeatedKey == "é")

            // Through the loader: two spellings of "é" are unknown keys, not a repeated one.
            let hive = Hive()
            let path = try temporaryFile(
                "services.json", Array(#"[{"service":"T.A","impl":"T.I","\u00e9":1,"e\u0301":2}]"#.utf8))
            let problems = try hive.loadServices(from: path)
            #expect(
                problems.map(\.message) == [#"expected only the keys impl, name, properties, rank, service; found "é""#]
            )
        }

        @Test("a root key given twice rejects the file: which of the two lists is meant is unknown")
        func repeatedRootKey() throws {
            let hive = Hive()
            let path = try temporaryFile(
                "BeeHive.json", Array(#"{"moduleClasses":[{"moduleClass":"T.A"}],"moduleClasses":[]}"#.utf8))
            let error = #expect(throws: HiveError.self) { try hive.loadModules(from: path) }
            #expect(error?.code == .malformedFile)
            #expect(
                error?.message
                    == #"expected a dictionary with a moduleClasses array; found the key "moduleClasses" 2 times in "#
                    + "the root")
            #expect(hive.moduleDeclarations.isEmpty)
        }

        struct Number: Sendable, CustomStringConvertible {
            let text: String
            let value: Int?
            var description: String { text }
        }

        @Test(
            "JSON integers: the whole 64-bit range, no leading zeros",
            arguments: [
                Number(text: "-9223372036854775808", value: Int.min),
                Number(text: "9223372036854775807", value: Int.max),
                Number(text: "0", value: 0), Number(text: "-0", value: 0), Number(text: "007", value: nil),
                Number(text: "-01", value: nil), Number(text: "00", value: nil),
            ])
        func integers(_ number: Number) throws {
            let result = Result { try read(number.text) }
            if let value = number.value {
                guard case .success(.integer(let read)) = result else {
                    Issue.record("\(number.text) read as \(result)")
                    return
                }
                #expect(read == value)
            } else {
                guard case .failure(let error as FileSyntaxError) = result else {
                    Issue.record("\(number.text) read as \(result)")
                    return
                }
                #expect(error.message.hasPrefix("expected a number without leading zeros (JSON forbids them)"))
            }
        }

        @Test("integers one beyond the 64-bit range are invalid values, not wrapped")
        func beyondRange() throws {
            for text in ["-9223372036854775809", "9223372036854775808"] {
                guard case .invalid(let invalid) = try read(text) else {
                    Issue.record("\(text) read as a value")
                    continue
                }
                #expect(invalid.found == "the integer \(text), outside the 64-bit range")
            }
        }
    }
}
