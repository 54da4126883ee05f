import Testing
import _BeeHiveFileFormats

/// The JSON lexer that the record parser and the JSON file reader share: the tokens, and what each reader's
/// policy makes of text that cannot be represented.
@Suite("JSON lexer")
struct JSONLexerTests {
    /// Runs `body` on a lexer over `bytes`, cursor at 0.
    static func lex<T>(
        _ bytes: [UInt8], _ body: (inout JSONLexer) throws(JSONLexerError) -> T
    ) -> Result<T, JSONLexerError> {
        bytes.withUnsafeBytes { buffer in
            var lexer = JSONLexer(buffer, end: "the end")
            return Result { () throws(JSONLexerError) in try body(&lexer) }
        }
    }

    struct StringCase: Sendable, CustomStringConvertible {
        let input: [UInt8]
        let text: JSONLexer.Text
        var description: String { String(decoding: input, as: UTF8.self) }

        init(_ input: String, _ text: JSONLexer.Text) {
            self.input = Array(input.utf8)
            self.text = text
        }

        init(bytes: [UInt8], _ text: JSONLexer.Text) {
            self.input = bytes
            self.text = text
        }
    }

    @Test(
        "strings: every escape, surrogate pairs; an unpaired surrogate or invalid UTF-8 is reported, not thrown",
        arguments: [
            StringCase(#""plain""#, .string("plain")),
            StringCase(#""""#, .string("")),
            StringCase(#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{8}\u{C}\n\r\t")),
            StringCase(#""caf\u00e9 \u00E9""#, .string("café é")),
            StringCase(#""模块""#, .string("模块")),
            StringCase(#""\ud83d\ude00""#, .string("😀")),
            StringCase(#""a\ud800b""#, .unpairedSurrogate(escape: #"\ud800"#, offset: 2)),
            StringCase(#""\udc00""#, .unpairedSurrogate(escape: #"\udc00"#, offset: 1)),
            // A high surrogate followed by an escape that is not a low one: both stand alone.
            StringCase(#""\uD800\u0041""#, .unpairedSurrogate(escape: #"\uD800"#, offset: 1)),
            StringCase(#""\ud800\ud83d\ude00""#, .unpairedSurrogate(escape: #"\ud800"#, offset: 1)),
            StringCase(bytes: [0x22, 0x61, 0xFF, 0x22], .invalidUTF8(byte: 0xFF, offset: 2)),
            StringCase(bytes: [0x22, 0x5C, 0x6E, 0xC3, 0x22], .invalidUTF8(byte: 0xC3, offset: 2)),
        ])
    func strings(_ string: StringCase) {
        let result = Self.lex(string.input) { lexer throws(JSONLexerError) in
            (try lexer.text(), lexer.index)
        }
        guard case .success(let (text, end)) = result else {
            Issue.record("\(string) failed: \(result)")
            return
        }
        #expect(text == string.text)
        #expect(end == string.input.count, "the cursor is after the closing quote")
    }

    struct BadString: Sendable, CustomStringConvertible {
        let input: String
        let message: String
        let offset: Int
        var description: String { input }
    }

    @Test(
        "strings: syntax errors say what was expected, what was found, and where",
        arguments: [
            BadString(
                input: "\"a\u{1}\"", message: "expected a character or an escape in a string; found control byte 0x1",
                offset: 2),
            BadString(
                input: #""abc"#, message: #"expected '"' to close the string opened at byte 0; found the end"#,
                offset: 4),
            BadString(
                input: #""abc\"#, message: #"expected '"' to close the string opened at byte 0; found the end"#,
                offset: 5),
            BadString(
                input: #""a\q""#,
                message: #"expected one of the escapes \" \\ \/ \b \f \n \r \t \uXXXX; found "\q""#, offset: 2),
            BadString(input: #""\u12x4""#, message: "expected a hex digit; found 'x'", offset: 5),
            BadString(input: #""\ud800\u12""#, message: "expected a hex digit; found '\"'", offset: 11),
        ])
    func badStrings(_ bad: BadString) {
        let result = Self.lex(Array(bad.input.utf8)) { lexer throws(JSONLexerError) in try lexer.text() }
        #expect(result == .failure(JSONLexerError(.syntax, bad.message, at: bad.offset)))
    }

    @Test("a strict string makes an unpaired surrogate a syntax error and invalid UTF-8 an error of its own")
    func strictStrings() {
        #expect(
            Self.lex(Array(#""x\ud800""#.utf8)) { lexer throws(JSONLexerError) in try lexer.string() }
                == .failure(
                    JSONLexerError(
                        .syntax,
                        "expected a high surrogate escape followed by a low one; found the unpaired surrogate escape "
                            + #"\ud800"#,
                        at: 2)))
        #expect(
            Self.lex([0x22, 0x61, 0xFE, 0x22]) { lexer throws(JSONLexerError) in try lexer.string() }
                == .failure(
                    JSONLexerError(.invalidUTF8, "expected UTF-8 text in a string; found invalid byte 0xfe", at: 2)))
        #expect(
            Self.lex(Array(#""\u00e9""#.utf8)) { lexer throws(JSONLexerError) in try lexer.string() } == .success("é"))
    }

    struct NumberCase: Sendable, CustomStringConvertible {
        let input: String
        /// The integer value, nil for a number that is not an integer of the 64-bit range.
        let integer: Int?
        let isInteger: Bool
        var description: String { input }
    }

    @Test(
        "numbers: the 64-bit integer range, fractions and exponents",
        arguments: [
            NumberCase(input: "0", integer: 0, isInteger: true),
            NumberCase(input: "-0", integer: 0, isInteger: true),
            NumberCase(input: "42", integer: 42, isInteger: true),
            NumberCase(input: "-9223372036854775808", integer: Int.min, isInteger: true),
            NumberCase(input: "9223372036854775807", integer: Int.max, isInteger: true),
            NumberCase(input: "9223372036854775808", integer: nil, isInteger: true),
            NumberCase(input: "-9223372036854775809", integer: nil, isInteger: true),
            NumberCase(input: "123456789012345678901234567890", integer: nil, isInteger: true),
            NumberCase(input: "1.5", integer: nil, isInteger: false),
            NumberCase(input: "-0.0e+3", integer: nil, isInteger: false),
            NumberCase(input: "1E9", integer: nil, isInteger: false),
        ])
    func numbers(_ number: NumberCase) {
        let bytes = Array(number.input.utf8) + Array(",".utf8)
        let result = Self.lex(bytes) { lexer throws(JSONLexerError) in try lexer.number() }
        guard case .success(let read) = result else {
            Issue.record("\(number) failed: \(result)")
            return
        }
        #expect(read.integer == number.integer)
        #expect(read.isInteger == number.isInteger)
        #expect(read.start == 0 && read.end == number.input.utf8.count, "the number stops before the ','")
    }

    @Test(
        "numbers: a leading zero or a missing digit is a syntax error",
        arguments: [
            ("007", #"expected a number without leading zeros (JSON forbids them); found "007""#, 0),
            ("-01", #"expected a number without leading zeros (JSON forbids them); found "-01""#, 0),
            ("-", "expected a digit; found the end", 1),
            ("1.", "expected a digit after the decimal point; found the end", 2),
            ("1e+", "expected a digit in the exponent; found the end", 3),
        ])
    func badNumbers(_ input: String, _ message: String, _ offset: Int) {
        let result = Self.lex(Array(input.utf8)) { lexer throws(JSONLexerError) in try lexer.number() }
        #expect(result == .failure(JSONLexerError(.syntax, message, at: offset)))
    }

    @Test("the fast paths read format-2 pieces in place and refuse anything else")
    func fastPaths() {
        let plain = Self.lex(Array(#""App.Service","#.utf8)) { lexer throws(JSONLexerError) in
            (lexer.plainString().map { Array($0) }, lexer.index)
        }
        #expect((try? plain.get())?.0 == Array("App.Service".utf8))
        #expect((try? plain.get())?.1 == 13)
        for refused in [#""a\"b""#, #""caf\#u{e9}""#, "\"a\u{1}\"", #""open"#, "bare"] {
            let result = Self.lex(Array(refused.utf8)) { lexer throws(JSONLexerError) in lexer.plainString() == nil }
            #expect(result == .success(true), "\(refused)")
        }
        let natural = { (text: String) in
            (try? Self.lex(Array(text.utf8)) { lexer throws(JSONLexerError) in lexer.plainNatural(maximumDigits: 9) }
                .get()) ?? nil
        }
        #expect(natural("42}") == 42)
        #expect(natural("0") == nil)
        #expect(natural("07") == nil)
        #expect(natural("-1") == nil)
        #expect(natural("1234567890") == 123_456_789, "stops after nine digits")
        let consumed = Self.lex(Array(#"{"service":"#.utf8)) { lexer throws(JSONLexerError) in
            (lexer.consume("{\"impl\":"), lexer.index, lexer.consume("{\"service\":"), lexer.index)
        }
        #expect((try? consumed.get()).map { [$0.0, $0.1 == 0, $0.2, $0.3 == 11] } == [false, true, true, true])
    }

    @Test("a plain string ends at its first quote at any offset; a byte that is not plain text before it refuses it")
    func plainStringAtEveryOffset() {
        // Long enough to be read eight bytes at a time, with more bytes that are not plain text after the first.
        let after: [UInt8] = [UInt8(ascii: "\""), 0x01, UInt8(ascii: "\\"), 0xC3] + Array("bbbbbbbbb".utf8)
        for length in 0...24 {
            let text = Array(repeating: UInt8(ascii: "a"), count: length)
            for byte: UInt8 in [UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x1F, 0x80, 0xFF] {
                let read = Self.lex([UInt8(ascii: "\"")] + text + [byte] + after) { lexer throws(JSONLexerError) in
                    (lexer.plainString().map { Array($0) }, lexer.index)
                }
                let (bytes, index) = (try? read.get()) ?? (nil, -1)
                if byte == UInt8(ascii: "\"") {
                    #expect(bytes == text && index == length + 2, "length \(length)")
                } else {
                    #expect(bytes == nil, "length \(length), byte \(byte)")
                }
            }
        }
    }

    @Test("a string's text is read the same wherever its quote, escape, control byte or non-ASCII byte lies")
    func textAtEveryOffset() {
        let after: [UInt8] = [UInt8(ascii: "\""), 0x01, UInt8(ascii: "\\"), 0xC3] + Array("bbbbbbbbb".utf8)
        for length in 0...24 {
            let text = String(repeating: "a", count: length)
            let read = { (tail: [UInt8]) in
                Self.lex([UInt8(ascii: "\"")] + Array(text.utf8) + tail + after) { lexer throws(JSONLexerError) in
                    try lexer.text()
                }
            }
            #expect(read([UInt8(ascii: "\"")]) == .success(.string(text)))
            #expect(read(Array(#"\n""#.utf8)) == .success(.string(text + "\n")))
            #expect(read(Array("é\"".utf8)) == .success(.string(text + "é")))
            #expect(read([0xFF, UInt8(ascii: "\"")]) == .success(.invalidUTF8(byte: 0xFF, offset: length + 1)))
            let control = "expected a character or an escape in a string; found control byte 0x1f"
            #expect(read([0x1F]) == .failure(JSONLexerError(.syntax, control, at: length + 1)))
        }
    }

    @Test("whitespace is JSON's four bytes, and messages name the end as the reader does")
    func whitespaceAndEnd() {
        let bytes = Array(" \t\r\n\u{C}x".utf8)
        let result = bytes.withUnsafeBytes { buffer in
            var lexer = JSONLexer(buffer, end: "the end of the file")
            lexer.skipWhitespace()
            let stopped = lexer.index
            lexer.index = bytes.count
            return (stopped, lexer.unexpected("a value").message)
        }
        #expect(result.0 == 4, "form feed is not JSON whitespace")
        #expect(result.1 == "expected a value; found the end of the file")
    }
}
