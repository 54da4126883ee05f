#if Macros
/// The bytes that an annotation writes into the binary: a JSON record (record format version 2) and the image
/// note, both as Swift literals that `@section` globals accept (integer `InlineArray` literals).
enum RecordBytes {
    // The plugin cannot import the C target that defines the format once (CSupport/_BeeHiveFormat/include/
    // bh_format.h): these copies are pinned to it by Tests/BeeHiveMacrosTests/FormatPinTests.swift.

    /// The version of the record and note format the macros write (`BH_FORMAT_SWIFT_MACROS_VERSION`).
    static let formatVersion: UInt32 = 2
    /// The image note's owner and type (`BH_FORMAT_NOTE_OWNER`, `BH_FORMAT_NOTE_TYPE`).
    static let noteOwner = "BeeHive"
    static let noteType: UInt32 = 1
    /// The sections of each kind (`BH_FORMAT_SERVICES_SECTION`, …) and their note prefixes (`…_PREFIX`).
    static let servicesSection = "beehive_services"
    static let modulesSection = "beehive_mods"
    static let routesSection = "beehive_routes"
    static let typesSection = "beehive_types"
    static let notePrefixes = (services: "services=", modules: "modules=", routes: "routes=", types: "types=")
    /// The image note's section (`BH_FORMAT_NOTE_SECTION`).
    static let noteSection = ".note.beehive"
    /// A typed record's magic and layout version (`BH_FORMAT_TYPED_RECORD_MAGIC`, `BH_FORMAT_TYPED_RECORD_LAYOUT`).
    static let typedRecordMagic: UInt32 = 0x5254_4842
    static let typedRecordLayout: UInt32 = 5

    /// The magic as the expansion writes it.
    static var typedRecordMagicLiteral: String {
        let hex = String(typedRecordMagic, radix: 16)
        return "0x" + hex.prefix(4) + "_" + hex.dropFirst(4)
    }

    /// The sections the note names, in the order `beehive.h` writes them, then the typed records' section.
    static let noteEntries = [
        notePrefixes.services + servicesSection, notePrefixes.modules + modulesSection,
        notePrefixes.routes + routesSection, notePrefixes.types + typesSection,
    ]

    /// A JSON value of a record: a string, an integer or a boolean.
    enum Value: Equatable {
        case string(String)
        case integer(Int64)
        case boolean(Bool)
    }

    /// The JSON text of an object record whose keys come in the order given.
    static func json(_ pairs: [(key: String, value: Value)]) -> String {
        let members = pairs.map { pair in
            let value: String
            switch pair.value {
            case .string(let text): value = quoted(text)
            case .integer(let number): value = String(number)
            case .boolean(let flag): value = flag ? "true" : "false"
            }
            return quoted(pair.key) + ":" + value
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped; other characters as UTF-8.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The record's bytes: its UTF-8 text and the terminating `0x00`.
    static func record(_ json: String) -> [UInt8] {
        Array(json.utf8) + [0]
    }

    /// The image note as 32-bit words (little-endian, as on every Linux target Swift supports): `namesz`,
    /// `descsz`, `type`, the owner "BeeHive\0", then the version and the NUL-terminated entries, padded to 4.
    static func noteWords() -> [UInt32] {
        var descriptor = [UInt8]()
        for entry in noteEntries { descriptor += Array(entry.utf8) + [0] }
        let descriptorSize = UInt32(4 + descriptor.count)
        let owner = Array(noteOwner.utf8) + [0]
        var words: [UInt32] = [UInt32(owner.count), descriptorSize, noteType]
        words += littleEndianWords(owner)
        words.append(formatVersion)
        words += littleEndianWords(descriptor)
        return words
    }

    /// `bytes` padded with zeros to a multiple of 4 and read as little-endian 32-bit words.
    static func littleEndianWords(_ bytes: [UInt8]) -> [UInt32] {
        let padded: [UInt8] = bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
        var words: [UInt32] = []
        for start in stride(from: 0, to: padded.count, by: 4) {
            var word: UInt32 = 0
            for index in 0..<4 {
                let byte = UInt32(padded[start + index])
                word |= byte << UInt32(8 * index)
            }
            words.append(word)
        }
        return words
    }

    /// An `InlineArray` literal of `values`, `[1, 2, 3]`.
    static func literal(_ values: [some BinaryInteger]) -> String {
        "[" + values.map { String($0) }.joined(separator: ", ") + "]"
    }
}
#endif
