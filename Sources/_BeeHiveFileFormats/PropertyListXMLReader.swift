/// A reader for XML property lists (the subset of XML that property lists use): linear time, nesting
/// bounded by ``FileReader/maximumDepth``.
///
/// Read: an optional byte-order mark, the XML declaration, a `<!DOCTYPE>` (skipped, never expanded),
/// comments and processing instructions, then `<plist>` around one value (or the value alone). Values are
/// `<dict>` (`<key>`/value pairs), `<array>`, `<string>`, `<integer>` (decimal or `0x` hex), `<real>`,
/// `<true/>`, `<false/>`, `<date>` (`YYYY-MM-DDTHH:MM:SSZ`) and `<data>` (base64). Text may use the five
/// predefined entities, character references and CDATA sections; other entities are not expanded. The text
/// is UTF-8: a file whose XML declaration names another encoding (other than ASCII) is refused.
///
/// Structure errors (an unknown element, a missing end tag) fail the file. Content that cannot be read (an
/// `<integer>` that is not a number, a bad date, text that is not UTF-8) is ``FileValue/invalid(_:)`` and
/// costs only its entry.
struct PropertyListXMLReader {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// A start tag: where its name lies in the file and whether it is empty (`<true/>`). The name is compared in
    /// place and made a string only for a message (a string per tag cost ~0.3 K instructions).
    private struct Tag {
        let name: Range<Int>
        let isEmpty: Bool
        let offset: Int
    }

    /// An element's text: a range of the file when it is one run of it (no reference, CDATA section or comment: it
    /// is not copied), else the bytes made.
    private enum Text {
        case file(Range<Int>)
        case made([UInt8])
    }

    /// Reads a whole XML property list.
    static func read(_ bytes: UnsafeRawBufferPointer) throws(FileSyntaxError) -> FileValue {
        var reader = PropertyListXMLReader(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        try reader.checkDeclaredEncoding()
        try reader.skipMarkup(allowingDoctype: true)
        let root = try reader.startTag(expected: "<plist> or a property list element")
        let value: FileValue
        if reader.tag(root, is: "plist") {
            guard !root.isEmpty else { throw reader.error("expected a value inside <plist>; found <plist/>", root) }
            try reader.skipMarkup()
            if reader.isAtEndTag { throw reader.unexpected("a value inside <plist>") }
            value = try reader.value(reader.startTag(expected: "a property list element"), depth: 0)
            try reader.skipMarkup()
            try reader.endTag("plist")
        } else {
            value = try reader.value(root, depth: 0)
        }
        try reader.skipMarkup()
        guard reader.index == bytes.count else {
            throw reader.unexpected("the end of the file after the property list")
        }
        return value
    }

    // MARK: - Markup

    /// Refuses a file whose XML declaration names an encoding other than UTF-8 (or its subset ASCII): its text would
    /// be read as UTF-8 and mean other characters (a `moduleClass` in Big5 read as Arabic).
    private func checkDeclaredEncoding() throws(FileSyntaxError) {
        guard starts(with: "<?xml"), let byte = bytes.dropFirst(index + 5).first, FileReader.isWhitespace(byte)
        else { return }
        var at = index + 5
        while at < bytes.count, !starts(with: "?>", at: at) {
            guard starts(with: "encoding", at: at) else {
                at += 1
                continue
            }
            at += 8
            while at < bytes.count, FileReader.isWhitespace(bytes[at]) { at += 1 }
            guard at < bytes.count, bytes[at] == UInt8(ascii: "=") else { continue }
            at += 1
            while at < bytes.count, FileReader.isWhitespace(bytes[at]) { at += 1 }
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") else { return }
            let quote = bytes[at]
            let start = at + 1
            var end = start
            while end < bytes.count, bytes[end] != quote, end - start < 40 { end += 1 }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            guard !["utf-8", "utf8", "us-ascii", "ascii"].contains(name.lowercased()) else { return }
            throw error(
                "expected a property list in UTF-8; its XML declaration names the encoding \"\(name)\" (at byte "
                    + "\(start)). BeeHive reads UTF-8 only: convert the file (iconv -f \(name) -t UTF-8)", at: start)
        }
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func starts(with text: StaticString, at offset: Int? = nil) -> Bool {
        let text = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        return Self.same(bytes, at: offset ?? index, text)
    }

    /// Whether the bytes of `bytes` at `offset` are those of `other` (a byte loop: the generic `elementsEqual` cost
    /// ~50 instructions a call more, and it runs at every tag).
    @inline(__always)
    private static func same(_ bytes: UnsafeRawBufferPointer, at offset: Int, _ other: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count - offset >= other.count else { return false }
        for i in 0..<other.count where bytes[offset + i] != other[i] { return false }
        return true
    }

    /// The name of `tag`, for messages.
    private func name(of tag: Tag) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[tag.name]), as: UTF8.self)
    }

    /// Whether `tag` is named `name`.
    private func tag(_ tag: Tag, is name: StaticString) -> Bool {
        tag.name.count == name.utf8CodeUnitCount && starts(with: name, at: tag.name.lowerBound)
    }

    /// Runs `body` on the bytes of `text`.
    private func withBytes<Result>(of text: Text, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch text {
        case .file(let range): body(UnsafeRawBufferPointer(rebasing: bytes[range]))
        case .made(let made): made.withUnsafeBytes(body)
        }
    }

    private func error(_ message: String, at offset: Int) -> FileSyntaxError {
        FileSyntaxError(.xmlPropertyList, message, at: offset)
    }

    private func error(_ message: String, _ tag: Tag) -> FileSyntaxError { error(message, at: tag.offset) }

    private func unexpected(_ expected: String) -> FileSyntaxError {
        error("expected \(expected); found \(found)", at: index)
    }

    /// What is at the cursor, for messages.
    private var found: String {
        guard let byte = peek else { return "the end of the file" }
        guard byte == UInt8(ascii: "<") else { return "text starting with \(FileReader.describe(byte))" }
        var end = index + 1
        while end < bytes.count, end - index < 40, bytes[end] != UInt8(ascii: ">") { end += 1 }
        let text = String(
            decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<min(end + 1, bytes.count)]), as: UTF8.self)
        return "\"\(text)\""
    }

    private var isAtEndTag: Bool {
        @inline(__always) get { byte(at: index) == UInt8(ascii: "<") && byte(at: index + 1) == UInt8(ascii: "/") }
    }

    /// The byte at `offset`, or 0 past the end (no byte of markup is 0).
    private func byte(at offset: Int) -> UInt8 { offset < bytes.count ? bytes[offset] : 0 }

    /// Moves past the bytes from the cursor for which `isPart` holds; returns where they lie. The hot loops of the
    /// reader: they run on a local cursor, which the optimizer keeps in a register, where a loop on the stored one
    /// wrote it back at every byte (~4× the instructions).
    private mutating func advance(while isPart: (UInt8) -> Bool) -> Range<Int> {
        let start = index
        var at = start
        while at < bytes.count, isPart(bytes[at]) { at += 1 }
        index = at
        return start..<at
    }

    private mutating func skipWhitespace() {
        _ = advance(while: FileReader.isWhitespace)
    }

    /// Moves past `terminator`, which must follow; `what` names the construct for the error.
    private mutating func skip(past terminator: StaticString, _ what: String) throws(FileSyntaxError) {
        let start = index
        while index < bytes.count {
            if starts(with: terminator) {
                index += terminator.utf8CodeUnitCount
                return
            }
            index += 1
        }
        throw error(
            "expected \"\(terminator)\" to end the \(what) at byte \(start); found the end of the file", at: start)
    }

    /// Skips whitespace, comments, processing instructions and (before the root) a document type declaration.
    private mutating func skipMarkup(allowingDoctype: Bool = false) throws(FileSyntaxError) {
        while true {
            skipWhitespace()
            // The byte after '<' decides: most tags are elements, whose names start with neither '!' nor '?'.
            guard peek == UInt8(ascii: "<") else { return }
            let next = byte(at: index + 1)
            if next == UInt8(ascii: "!"), starts(with: "<!--") {
                try skip(past: "-->", "comment")
            } else if next == UInt8(ascii: "?") {
                try skip(past: "?>", "processing instruction")
            } else if allowingDoctype, next == UInt8(ascii: "!"), starts(with: "<!DOCTYPE") {
                try skipDoctype()
            } else {
                return
            }
        }
    }

    /// Skips `<!DOCTYPE …>`, with an internal subset in brackets if any (never expanded).
    private mutating func skipDoctype() throws(FileSyntaxError) {
        let start = index
        var inSubset = false
        var quote: UInt8?
        while let b = peek {
            index += 1
            if let q = quote {
                if b == q { quote = nil }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: "[") {
                inSubset = true
            } else if b == UInt8(ascii: "]") {
                inSubset = false
            } else if b == UInt8(ascii: ">"), !inSubset {
                return
            }
        }
        throw error("expected '>' to end the <!DOCTYPE> at byte \(start); found the end of the file", at: start)
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"),
            UInt8(ascii: "."):
            true
        default: b >= 0x80
        }
    }

    /// Moves past a name; returns where it lies.
    private mutating func name() -> Range<Int> { advance(while: Self.isNameByte) }

    /// Reads a start tag `<name attr="…">` or `<name/>`.
    private mutating func startTag(expected: String) throws(FileSyntaxError) -> Tag {
        let offset = index
        guard peek == UInt8(ascii: "<"), index + 1 < bytes.count, Self.isNameByte(bytes[index + 1]) else {
            throw unexpected(expected)
        }
        index += 1
        let tag = Tag(name: name(), isEmpty: false, offset: offset)
        while true {
            skipWhitespace()
            guard let b = peek else { throw unexpected("'>' to end the tag <\(name(of: tag))>") }
            if b == UInt8(ascii: ">") {
                index += 1
                return tag
            }
            if b == UInt8(ascii: "/") {
                index += 1
                guard peek == UInt8(ascii: ">") else { throw unexpected("'>' after '/' in the tag <\(name(of: tag))>") }
                index += 1
                return Tag(name: tag.name, isEmpty: true, offset: offset)
            }
            // An attribute: name = "value" or 'value'.
            guard Self.isNameByte(b) else {
                throw unexpected("an attribute, '>' or '/>' in the tag <\(name(of: tag))>")
            }
            _ = self.name()
            skipWhitespace()
            guard peek == UInt8(ascii: "=") else {
                throw unexpected("'=' after an attribute name in <\(name(of: tag))>")
            }
            index += 1
            skipWhitespace()
            guard let quote = peek, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw unexpected("a quoted attribute value in <\(name(of: tag))>")
            }
            let open = index
            index += 1
            while let c = peek, c != quote { index += 1 }
            guard peek == quote else {
                throw error(
                    "expected a quote to end the attribute value at byte \(open); found the end of the file", at: open)
            }
            index += 1
        }
    }

    /// Reads the end tag `</name>`.
    private mutating func endTag(_ name: StaticString) throws(FileSyntaxError) {
        try endTag(named: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    /// Reads the end tag of `tag`.
    private mutating func endTag(of tag: Tag) throws(FileSyntaxError) {
        try endTag(named: UnsafeRawBufferPointer(rebasing: bytes[tag.name]))
    }

    /// Reads the end tag whose name is the bytes `name`.
    private mutating func endTag(named name: UnsafeRawBufferPointer) throws(FileSyntaxError) {
        let offset = index
        // The name expected is compared in place, and must not go on: no scan of the name found.
        guard isAtEndTag, Self.same(bytes, at: index + 2, name), !Self.isNameByte(byte(at: index + 2 + name.count))
        else { throw unexpected("</\(String(decoding: name, as: UTF8.self))>") }
        index += 2 + name.count
        skipWhitespace()
        guard peek == UInt8(ascii: ">") else {
            index = offset
            throw unexpected("</\(String(decoding: name, as: UTF8.self))>")
        }
        index += 1
    }

    // MARK: - Values

    /// The value of the element `tag` (already read), whose containers sit at `depth` + 1.
    private mutating func value(_ tag: Tag, depth: Int) throws(FileSyntaxError) -> FileValue {
        if self.tag(tag, is: "dict") { return try dictionary(tag, depth: depth + 1) }
        if self.tag(tag, is: "array") { return try array(tag, depth: depth + 1) }
        if self.tag(tag, is: "string") {
            let (text, textOffset, problem) = try content(of: tag)
            if let problem { return .invalid("a <string> with \(problem)") }
            return withBytes(of: text) { FileReader.utf8String($0, at: textOffset, in: "a <string>") }
        }
        if self.tag(tag, is: "integer") { return try scalar(tag) { Self.integer($0) } }
        if self.tag(tag, is: "real") { return try scalar(tag) { Self.real($0) } }
        if self.tag(tag, is: "date") {
            return try scalar(tag) { text in
                FileDate.seconds(text).map(FileValue.date)
                    ?? .invalid("a <date> that is not YYYY-MM-DDTHH:MM:SSZ: \"\(Self.shortened(text))\"")
            }
        }
        if self.tag(tag, is: "data") {
            return try scalar(tag) { text in
                Self.base64(text).map(FileValue.data)
                    ?? .invalid("a <data> that is not base64: \"\(Self.shortened(text))\"")
            }
        }
        if self.tag(tag, is: "true") || self.tag(tag, is: "false") {
            let (text, _, _) = try content(of: tag)
            guard withBytes(of: text, { $0.allSatisfy(FileReader.isWhitespace) }) else {
                return .invalid("a <\(name(of: tag))> holding text: \"\(Self.shortened(array(of: text)))\"")
            }
            return .bool(self.tag(tag, is: "true"))
        }
        throw error(
            "expected a property list element (<dict>, <array>, <string>, <integer>, <real>, <true/>, "
                + "<false/>, <date> or <data>); found <\(name(of: tag))>", tag)
    }

    /// A scalar element: its text, made a value by `convert`.
    private mutating func scalar(
        _ tag: Tag, _ convert: ([UInt8]) -> FileValue
    ) throws(FileSyntaxError) -> FileValue {
        let (text, _, problem) = try content(of: tag)
        if let problem { return .invalid("an <\(name(of: tag))> with \(problem)") }
        return convert(array(of: text))
    }

    /// The bytes of `text` in an array of their own.
    private func array(of text: Text) -> [UInt8] { withBytes(of: text) { Array($0) } }

    private func checkDepth(_ depth: Int, _ tag: Tag) throws(FileSyntaxError) {
        guard depth <= FileReader.maximumDepth else {
            throw error(
                "expected <array> and <dict> nested at most \(FileReader.maximumDepth) levels deep; "
                    + "found level \(depth)", tag)
        }
    }

    private mutating func array(_ tag: Tag, depth: Int) throws(FileSyntaxError) -> FileValue {
        try checkDepth(depth, tag)
        var elements: [FileValue] = []
        if tag.isEmpty { return .array(elements) }
        while true {
            try skipMarkup()
            if isAtEndTag {
                try endTag("array")
                return .array(elements)
            }
            elements.append(try value(startTag(expected: "a property list element or </array>"), depth: depth))
        }
    }

    private mutating func dictionary(_ tag: Tag, depth: Int) throws(FileSyntaxError) -> FileValue {
        try checkDepth(depth, tag)
        var fields: [FileField] = []
        if tag.isEmpty { return .dictionary(fields) }
        // Room for a registration's keys (service, impl, name, rank, properties): one allocation, not three.
        fields.reserveCapacity(5)
        var badKey: InvalidFileValue?
        while true {
            try skipMarkup()
            if isAtEndTag {
                try endTag("dict")
                guard let badKey else { return .dictionary(fields) }
                return .invalid("a <dict> whose <key> is \(badKey.found)", isUTF8Problem: badKey.isUTF8Problem)
            }
            let keyTag = try startTag(expected: "<key> or </dict>")
            guard self.tag(keyTag, is: "key") else {
                throw error("expected <key> or </dict>; found <\(name(of: keyTag))>", keyTag)
            }
            let (keyText, keyOffset, problem) = try content(of: keyTag)
            try skipMarkup()
            if isAtEndTag { throw unexpected("a value after the <key>") }
            let value = try value(startTag(expected: "a value after the <key>"), depth: depth)
            if let problem {
                badKey = badKey ?? InvalidFileValue(found: "text with \(problem)", isUTF8Problem: false)
                continue
            }
            switch withBytes(of: keyText, { FileReader.utf8String($0, at: keyOffset, in: "text") }) {
            case .string(let key): fields.append(FileField(key: key, value: value))
            case .invalid(let invalid): badKey = badKey ?? invalid
            default: break
            }
        }
    }

    /// The text of the element `tag` up to its end tag, with entities and CDATA sections resolved, and the
    /// offset of its first byte. A problem (an unknown entity) is returned, not thrown: it costs the entry.
    private mutating func content(of tag: Tag) throws(FileSyntaxError) -> (Text, Int, String?) {
        let start = index
        if tag.isEmpty { return (.file(start..<start), start, nil) }
        // Most text is one run up to the end tag: read apart from the general case, whose state costs ~0.2 K
        // instructions a call to set up.
        let run = advance { $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: "&") }
        if isAtEndTag {
            try endTag(of: tag)
            return (.file(run), start, nil)
        }
        return try markedUpContent(of: tag, from: start)
    }

    /// The text of the element `tag` as ``content(of:)`` reads it, when it holds a reference, a CDATA section, a
    /// comment or a processing instruction (or no end tag): from `start`, its first run read up to the cursor.
    @inline(never)
    private mutating func markedUpContent(of tag: Tag, from start: Int) throws(FileSyntaxError) -> (Text, Int, String?)
    {
        // Nil while the text is the first run of the file, which ends at `firstEnd`.
        var made: [UInt8]?
        var firstEnd = start
        var problem: String?
        while true {
            let run = index
            _ = advance { $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: "&") }
            if made == nil {
                firstEnd = index
            } else {
                made!.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run..<index]))
            }
            guard let b = peek else { throw unexpected("</\(name(of: tag))>") }
            if isAtEndTag {
                try endTag(of: tag)
                return (made.map(Text.made) ?? .file(start..<firstEnd), start, problem)
            }
            if made == nil { made = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<firstEnd])) }
            if b == UInt8(ascii: "&") {
                let reference = index
                if let scalar = entity() {
                    made!.append(contentsOf: String(scalar).utf8)
                } else {
                    index = reference + 1
                    while let c = peek, c != UInt8(ascii: ";"), c != UInt8(ascii: "<"), index - reference < 12 {
                        index += 1
                    }
                    if peek == UInt8(ascii: ";") { index += 1 }
                    let name = String(
                        decoding: UnsafeRawBufferPointer(rebasing: bytes[reference..<index]), as: UTF8.self)
                    problem = problem ?? "an unknown or invalid entity reference \"\(name)\""
                }
            } else if starts(with: "<![CDATA[") {
                index += 9
                let inner = index
                try skip(past: "]]>", "CDATA section")
                made!.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[inner..<index - 3]))
            } else if starts(with: "<!--") {
                try skip(past: "-->", "comment")
            } else if starts(with: "<?") {
                try skip(past: "?>", "processing instruction")
            } else {
                throw unexpected("text and </\(name(of: tag))>, not an element inside <\(name(of: tag))>")
            }
        }
    }

    /// The character of the reference at the cursor (`&lt;`, `&#233;`, `&#xE9;`), moving past it; nil if
    /// it is not one.
    private mutating func entity() -> Unicode.Scalar? {
        let predefined: [(StaticString, UInt8)] = [
            ("&lt;", UInt8(ascii: "<")), ("&gt;", UInt8(ascii: ">")), ("&amp;", UInt8(ascii: "&")),
            ("&quot;", UInt8(ascii: "\"")), ("&apos;", UInt8(ascii: "'")),
        ]
        for (name, byte) in predefined where starts(with: name) {
            index += name.utf8CodeUnitCount
            return Unicode.Scalar(byte)
        }
        guard starts(with: "&#") else { return nil }
        var at = index + 2
        let hex = at < bytes.count && bytes[at] == UInt8(ascii: "x")
        if hex { at += 1 }
        var value: UInt32 = 0
        let digitsStart = at
        while at < bytes.count, at - digitsStart < 8, let digit = bytes[at].digitValue(radix: hex ? 16 : 10) {
            value = value * (hex ? 16 : 10) + UInt32(digit)
            at += 1
        }
        guard at > digitsStart, at < bytes.count, bytes[at] == UInt8(ascii: ";"), value != 0,
            let scalar = Unicode.Scalar(value)
        else { return nil }
        index = at + 1
        return scalar
    }

    // MARK: - Scalars

    private static func trimmed(_ text: [UInt8]) -> ArraySlice<UInt8> {
        var slice = text[...]
        while let b = slice.first, FileReader.isWhitespace(b) { slice = slice.dropFirst() }
        while let b = slice.last, FileReader.isWhitespace(b) { slice = slice.dropLast() }
        return slice
    }

    private static func shortened(_ text: [UInt8]) -> String {
        FileValue.shortened(String(decoding: trimmed(text), as: UTF8.self))
    }

    /// An `<integer>`: decimal or `0x` hexadecimal, with an optional sign.
    private static func integer(_ text: [UInt8]) -> FileValue {
        var digits = trimmed(text)
        let negative = digits.first == UInt8(ascii: "-")
        if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        var radix = 10
        if digits.starts(with: "0x".utf8) || digits.starts(with: "0X".utf8) {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty else { return .invalid("an <integer> that is not a number: \"\(shortened(text))\"") }
        var number = IntegerAccumulator()
        for b in digits {
            guard let digit = b.digitValue(radix: radix) else {
                return .invalid("an <integer> that is not a number: \"\(shortened(text))\"")
            }
            number.append(digit, radix: radix)
        }
        guard let value = number.value(negative: negative) else {
            return .invalid("an <integer> outside the 64-bit range: \(shortened(text))")
        }
        return .integer(value)
    }

    /// A `<real>`: a decimal number, `nan`, `inf` or `infinity` with an optional sign.
    private static func real(_ text: [UInt8]) -> FileValue {
        let digits = trimmed(text)
        guard digits.count <= 1_000, let value = Double(String(decoding: digits, as: UTF8.self)) else {
            return .invalid("a <real> that is not a number: \"\(shortened(text))\"")
        }
        return .real(value)
    }

    /// Base64 `text`, whitespace ignored; nil if it is not base64.
    private static func base64(_ text: [UInt8]) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 4 * 3)
        var group: UInt32 = 0
        var count = 0
        var padding = 0
        for b in text where !FileReader.isWhitespace(b) {
            let sextet: UInt32
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): sextet = UInt32(b - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): sextet = UInt32(b - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sextet = UInt32(b - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): sextet = 62
            case UInt8(ascii: "/"): sextet = 63
            case UInt8(ascii: "="):
                padding += 1
                sextet = 0
            default: return nil
            }
            if padding > 0, b != UInt8(ascii: "=") { return nil }
            group = group << 6 | sextet
            count += 1
            if count == 4 {
                guard padding <= 2 else { return nil }
                bytes.append(UInt8(group >> 16))
                if padding < 2 { bytes.append(UInt8(group >> 8 & 0xFF)) }
                if padding < 1 { bytes.append(UInt8(group & 0xFF)) }
                group = 0
                count = 0
            }
        }
        return count == 0 ? bytes : nil
    }
}
