/// The JSON schema of `beehive inspect --format json`, version 1, written down again from
/// Docs/CommandLineTool.md: decoding the tool's output with it checks the documented schema, not the tool's own
/// types.
struct InspectionJSON: Decodable, Sendable {
    var version: Int
    var files: [File]

    struct File: Decodable, Sendable {
        var path: String
        var format: String?
        var error: String?
        var memberCount: Int?
        var problems: [String]
        var images: [Image]
    }

    struct Image: Decodable, Sendable {
        var member: String?
        var type: String
        var symbols: String
        var notes: [Note]
        var sections: [Section]
        var records: [Record]
        var problems: [String]
    }

    struct Note: Decodable, Sendable {
        var section: Int
        var version: Int
        var entries: [Entry]

        struct Entry: Decodable, Sendable {
            var kind: String
            var section: String
        }
    }

    struct Section: Decodable, Sendable {
        var name: String
        var kind: String
        var index: Int
        var fileOffset: UInt64
        var size: UInt64
        var address: UInt64?
        var flags: UInt64
        var allocated: Bool
        var retained: Bool
        var namedByNote: Bool
        var error: String?
    }

    struct Record: Decodable, Sendable, Equatable {
        var kind: String
        var section: String
        var sectionIndex: Int
        var offset: Int
        var fileOffset: UInt64
        var file: String?
        var line: Int?
        var service: String?
        var implementation: String?
        var name: String?
        var rank: Int?
        var properties: [String: String]?
        var module: String?
        var level: Int?
        var priority: Int?
        var async: Bool?
        var route: String?
        var handler: String?
        var source: Source?
        var error: Problem?
        var text: String?

        struct Source: Decodable, Sendable, Equatable {
            var file: String?
            var symbol: String
        }

        struct Problem: Decodable, Sendable, Equatable {
            var code: String
            var message: String
            var byteOffset: Int?
        }
    }

    /// Every record of every image of every file.
    var records: [Record] { files.flatMap { $0.images.flatMap(\.records) } }
}
