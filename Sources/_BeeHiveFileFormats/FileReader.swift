/// Reads configuration files (XML and binary property lists, JSON) into ``FileValue``s, safely for hostile
/// input.
///
/// The readers are BeeHive's own, not Foundation's decoders: every one works in time linear in the file's
/// size, recurses at most ``maximumDepth`` levels, and never follows a binary property list's object
/// references in a cycle or expands shared objects (an object referenced many times is read once).
///
/// Limits, each a clear error rather than a crash, a hang or a huge allocation:
/// - a file is at most ``maximumFileSize`` bytes;
/// - arrays and dictionaries nest at most ``maximumDepth`` levels (BeeHive's files need 3);
/// - a binary property list's object never contains itself.
///
/// Problems of structure (the file cannot be walked) fail the file; problems of one value (a date where a
/// string belongs, an `<integer>` that is not a number, text that is not UTF-8) become values the loaders
/// reject with the entry that holds them.
package enum FileReader {
    /// The largest configuration file the loaders read: 4 MiB (a BHService.plist of about 25,000 entries).
    package static let maximumFileSize = 4 << 20
    /// The deepest nesting of arrays and dictionaries: 64 levels (BeeHive's files need 3).
    static let maximumDepth = 64

    /// The formats, told apart by their first bytes.
    package enum Format: Sendable, CustomStringConvertible {
        case json, xmlPropertyList, binaryPropertyList

        package var description: String {
            switch self {
            case .json: "JSON"
            case .xmlPropertyList: "an XML property list"
            case .binaryPropertyList: "a binary property list"
            }
        }
    }

    /// The format of `bytes`: a binary property list starts with `bplist`, an XML one with `<` (after an
    /// optional byte-order mark and whitespace); anything else is read as JSON. UTF-16 text is told apart
    /// the same way, for the message that refuses it.
    static func format(of bytes: UnsafeRawBufferPointer) -> Format {
        if bytes.starts(with: "bplist".utf8) { return .binaryPropertyList }
        if isUTF16(bytes) {
            let first = bytes.dropFirst(2).prefix(2)
            return first.contains(UInt8(ascii: "<")) && first.contains(0) ? .xmlPropertyList : .json
        }
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: "<") ? .xmlPropertyList : .json
    }

    /// Reads a whole file.
    /// - Throws: ``FileSyntaxError`` when the file is not one of the formats, too large, too deeply nested
    ///   or (binary property lists) cyclic.
    package static func read(_ bytes: UnsafeRawBufferPointer) throws(FileSyntaxError) -> FileValue {
        let format = format(of: bytes)
        guard bytes.count <= maximumFileSize else {
            throw FileSyntaxError(
                format, "expected a file of at most \(maximumFileSize) bytes (4 MiB); found \(bytes.count) bytes")
        }
        guard !isUTF16(bytes) else {
            throw FileSyntaxError(
                format, "expected UTF-8 text; found a UTF-16 byte-order mark (save the file as UTF-8)", at: 0)
        }
        // UTF-16 and UTF-32 text without a byte-order mark (RFC 4627 §3): a NUL byte among the first four, which
        // neither JSON nor XML allows there in UTF-8.
        if format != .binaryPropertyList, let nul = bytes.prefix(4).firstIndex(of: 0) {
            throw FileSyntaxError(
                format,
                "expected UTF-8 text; found a NUL byte at offset \(nul), as UTF-16 or UTF-32 text without a "
                    + "byte-order mark has (save the file as UTF-8)", at: nul)
        }
        switch format {
        case .json: return try JSONFileReader.read(bytes)
        case .xmlPropertyList: return try PropertyListXMLReader.read(bytes)
        case .binaryPropertyList: return try BinaryPropertyListReader.read(bytes)
        }
    }

    /// Whether `bytes` start with a UTF-16 byte-order mark (the readers read UTF-8 only).
    static func isUTF16(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// `byte` for a message: `'x'` when printable ASCII, else `byte 0x..`.
    static func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    /// How many bytes of `bytes` are valid UTF-8 before the first invalid sequence (all of them when none is).
    static func validUTF8Prefix(_ bytes: some Collection<UInt8>) -> Int {
        var position = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let scalar) = decoder.decode(&iterator) { position += UTF8.width(scalar) }
        return position
    }

    /// The first invalid UTF-8 sequence of `bytes` as "byte 0x.. at offset n" (offsets from `base`).
    static func firstInvalidUTF8(_ bytes: some Collection<UInt8>, base: Int) -> String {
        let position = validUTF8Prefix(bytes)
        let bad = bytes.dropFirst(position).first.map { String($0, radix: 16) } ?? "?"
        return "byte 0x\(bad) at offset \(base + position)"
    }

    /// `bytes` as a string, or an invalid value saying where the UTF-8 breaks.
    static func utf8String(_ bytes: UnsafeRawBufferPointer, at offset: Int, in what: String) -> FileValue {
        // ASCII, most of what these files hold, is UTF-8 as it is: decoded without the generic validation, which looks
        // up a buffer type's metadata at each call (~0.3 K instructions).
        if bytes.allSatisfy({ $0 < 0x80 }) { return .string(String(decoding: bytes, as: UTF8.self)) }
        if let string = String(validating: bytes, as: UTF8.self) { return .string(string) }
        return .invalid(
            "\(what) that is not valid UTF-8 (\(firstInvalidUTF8(bytes, base: offset)))", isUTF8Problem: true)
    }
}

/// Why a file cannot be read as a whole: what was expected, what was found, and where.
package struct FileSyntaxError: Error, Sendable {
    /// The format the file was read as.
    package let format: FileReader.Format
    /// What was expected and what was found.
    package let message: String
    /// The byte offset of the problem, when known.
    package let offset: Int?

    init(_ format: FileReader.Format, _ message: String, at offset: Int? = nil) {
        self.format = format
        self.message = message
        self.offset = offset
    }

    /// The message with its place: byte offset, plus line and column for the text formats.
    package func describe(in bytes: UnsafeRawBufferPointer) -> String {
        guard let offset else { return message }
        guard format != .binaryPropertyList else { return "\(message) (at byte \(offset))" }
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return "\(message) (at byte \(offset), line \(line), column \(offset - lineStart + 1))"
    }
}
