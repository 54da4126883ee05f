import FoundationEssentials

/// Any value of a property list or JSON file, decoded leniently so that one bad entry does not
/// reject the file.
enum FileValue: Decodable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    case array([FileValue])
    case dictionary([String: FileValue])

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if let v = try? container.decode(String.self) {
                self = .string(v)
                return
            }
            if let v = try? container.decode(Bool.self) {
                self = .bool(v)
                return
            }
            if let v = try? container.decode(Int.self) {
                self = .integer(v)
                return
            }
            if let v = try? container.decode(Double.self) {
                self = .double(v)
                return
            }
            if let v = try? container.decode([FileValue].self) {
                self = .array(v)
                return
            }
            if let v = try? container.decode([String: FileValue].self) {
                self = .dictionary(v)
                return
            }
        }
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unsupported value"))
    }

    /// Reads a property list (XML or binary) or JSON file.
    static func read(_ data: Data) throws -> FileValue {
        try decoder(for: data).decode(FileValue.self, from: data)
    }

    /// A JSON decoder for content that starts with `{` or `[`, else a property list decoder.
    static func decoder(for data: Data) -> any TopLevelDecoderForFiles {
        let first = data.first {
            !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF)
        }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return JSONDecoder() }
        return PropertyListDecoder()
    }

    var description: String {
        switch self {
        case .string(let s): "\"\(s)\""
        case .integer(let i): String(i)
        case .double(let d): String(d)
        case .bool(let b): String(b)
        case .array(let a): "an array of \(a.count)"
        case .dictionary(let d): "a dictionary with keys \(d.keys.sorted().joined(separator: ", "))"
        }
    }

    var kind: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .double: "a number"
        case .bool: "a boolean"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}

/// The decoders configuration files are read with.
protocol TopLevelDecoderForFiles {
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: TopLevelDecoderForFiles {}
extension PropertyListDecoder: TopLevelDecoderForFiles {}
