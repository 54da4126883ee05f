/// Any value of a property list or JSON file, as ``FileReader`` reads it.
///
/// Every value the formats can hold has a case, including those the loaders never use (dates, data, null,
/// UIDs), so that an entry holding one is rejected with a message that says what it holds while the rest of
/// the file still loads. A value whose content cannot be read (an `<integer>` that is not a number, a string
/// that is not UTF-8) is ``invalid(_:)``: it costs the entry that holds it, not the file.
package enum FileValue: Sendable {
    case string(String)
    /// An integer that fits in 64 bits (others are ``invalid(_:)``).
    case integer(Int)
    case real(Double)
    case bool(Bool)
    /// Seconds since 2001-01-01T00:00:00Z, as property lists count them.
    case date(Double)
    case data([UInt8])
    /// JSON's `null`, or a binary property list's null object.
    case null
    /// A binary property list's UID (a keyed archive's object reference).
    case uid(UInt64)
    case array([FileValue])
    /// The pairs in file order. Keys are compared by their UTF-8 bytes and may repeat: the loaders reject an
    /// entry whose keys repeat.
    case dictionary([FileField])
    /// A value the file holds but that cannot be read, with what was found.
    case invalid(InvalidFileValue)

    /// A value that cannot be read.
    static func invalid(_ found: String, isUTF8Problem: Bool = false) -> FileValue {
        .invalid(InvalidFileValue(found: found, isUTF8Problem: isUTF8Problem))
    }
}

/// One `key: value` pair of a dictionary in a file.
package struct FileField: Sendable {
    package let key: String
    package let value: FileValue

    package init(key: String, value: FileValue) {
        self.key = key
        self.value = value
    }
}

/// Why a value of a file cannot be read.
package struct InvalidFileValue: Sendable {
    /// What was found, as a noun phrase for "found …" ("an <integer> that is not a number: \"1O0\"").
    package let found: String
    /// Whether the problem is text that is not valid UTF-8 (or UTF-16).
    package let isUTF8Problem: Bool
}

extension FileValue: CustomStringConvertible {
    /// What the value is, for "found …" in messages: the value itself for scalars, a summary for the rest.
    package var description: String {
        switch self {
        case .string(let s): "\"\(Self.shortened(s))\""
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .bool(let b): String(b)
        case .date(let seconds): "a date (\(FileDate.text(seconds)))"
        case .data(let bytes): "data (\(bytes.count) bytes)"
        case .null: "null"
        case .uid(let uid): "a UID (\(uid))"
        case .array(let a): "an array of \(a.count)"
        case .dictionary(let d):
            d.isEmpty
                ? "an empty dictionary"
                : "a dictionary with keys "
                    + d.prefix(10).map { Self.shortened($0.key) }.joined(separator: ", ") + (d.count > 10 ? ", …" : "")
        case .invalid(let invalid): invalid.found
        }
    }

    /// The kind of value, for messages: "a string", "an array".
    package var kind: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real number"
        case .bool: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .null: "null"
        case .uid: "a UID"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .invalid(let invalid): invalid.found
        }
    }

    /// `text`, cut after 100 Unicode scalars so that a hostile file cannot make a message huge (a cut by
    /// characters would not do: one character can hold any number of combining marks).
    package static func shortened(_ text: String) -> String {
        guard text.utf8.count > 100 else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(100))) + "… (\(text.utf8.count) bytes)"
    }
}

extension [FileField] {
    /// The value of the first pair whose key has the UTF-8 bytes of `key`.
    ///
    /// Keys compare by bytes, not by Unicode canonical equivalence: the formats are UTF-8 (or UTF-16) text,
    /// and two keys that look alike but differ in bytes (NFC and NFD forms) are different keys.
    package func value(forKey key: String) -> FileValue? {
        first { $0.key.hasSameUTF8(as: key) }?.value
    }

    /// How many pairs have the key `key` (compared by UTF-8 bytes).
    package func count(ofKey key: String) -> Int {
        count { $0.key.hasSameUTF8(as: key) }
    }

    /// The first key that appears more than once (compared by UTF-8 bytes), if any.
    package var repeatedKey: String? {
        if count <= 8 {
            for i in indices.dropFirst() where self[..<i].contains(where: { $0.key.hasSameUTF8(as: self[i].key) }) {
                return self[i].key
            }
            return nil
        }
        var seen = Set<UTF8Key>()
        return first { !seen.insert(UTF8Key($0.key)).inserted }?.key
    }
}

extension String {
    /// Whether `other` has the same UTF-8 bytes (Swift's `==` compares by canonical equivalence).
    package func hasSameUTF8(as other: String) -> Bool {
        // The same bits are the same bytes: a string of up to 15 bytes holds them in its bits, a longer one points to
        // them. Keys are such short strings, read from a file and compared with literals many times per entry.
        if MemoryLayout<String>.size == 16,
            unsafeBitCast(self, to: (UInt64, UInt64).self) == unsafeBitCast(other, to: (UInt64, UInt64).self)
        {
            return true
        }
        let (a, b) = (utf8, other.utf8)
        guard a.count == b.count else { return false }
        // A byte loop over the contiguous bytes: `elementsEqual` steps two iterators (~2× the instructions, and keys
        // are compared many times per entry of a file).
        let contiguous = a.withContiguousStorageIfAvailable { a in
            b.withContiguousStorageIfAvailable { b in a.indices.allSatisfy { a[$0] == b[$0] } }
        }
        return (contiguous ?? nil) ?? a.elementsEqual(b)
    }
}

/// A string that hashes and compares by its UTF-8 bytes (Swift's `String` compares by canonical equivalence).
struct UTF8Key: Hashable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (a: UTF8Key, b: UTF8Key) -> Bool { a.string.hasSameUTF8(as: b.string) }

    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
