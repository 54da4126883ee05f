#if Macros
/// What an annotation writes into the binary (record format version 3): a Swift record, and its JSON as Swift literals
/// that `@section` globals accept (integer `InlineArray` literals) for the `beehive` tool.
enum RecordBytes {
    // The plugin cannot import the C target that defines the format once (CSupport/_BeeHiveFormat/include/
    // bh_format.h): these copies are pinned to it by Tests/BeeHiveMacrosTests/FormatPinTests.swift.

    /// The version of the record format the macros write (`BH_FORMAT_SWIFT_MACROS_VERSION`).
    static let formatVersion: UInt32 = 3
    /// The section of Swift records (`BH_FORMAT_SWIFT_TESTS_SECTION`), their kind ("bhiv",
    /// `BH_FORMAT_SWIFT_RECORD_KIND`) and version (`BH_FORMAT_SWIFT_RECORD_VERSION`).
    static let swiftRecordsSection = "swift5_tests"
    static let swiftRecordKind: UInt32 = 0x6268_6976
    static let swiftRecordVersion: UInt32 = 3
    /// The layout of the typed value the accessor writes, in the record's last word (`BH_FORMAT_SWIFT_TYPED_LAYOUT`).
    static let swiftTypedLayout: UInt = 1

    /// What a record declares: its record kind in a Swift record, and the section of the JSON copy that the
    /// `beehive` tool reads (`BH_FORMAT_SWIFT_SERVICES_SECTION`, …).
    enum Kind: Int, CaseIterable {
        case service = 1
        case module = 2
        case route = 3
        /// A protocol's API version (`@BeeHiveAPI`), `BH_FORMAT_SWIFT_RECORD_KIND_API`.
        case api = 4

        var jsonSection: String {
            switch self {
            case .service: "beehive_swift_services"
            case .module: "beehive_swift_mods"
            case .route: "beehive_swift_routes"
            case .api: "beehive_swift_apis"
            }
        }
    }

    /// The kind as the expansion writes it, `0x6268_6976`.
    static var swiftRecordKindLiteral: String {
        let hex = String(swiftRecordKind, radix: 16)
        return "0x" + hex.prefix(4) + "_" + hex.dropFirst(4)
    }

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

    /// An `InlineArray` literal of `values`, `[1, 2, 3]`.
    static func literal(_ values: [some BinaryInteger]) -> String {
        "[" + values.map { String($0) }.joined(separator: ", ") + "]"
    }
}
#endif
