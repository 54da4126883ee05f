import BeeHiveTestSupport
import Foundation
import Testing

/// Holds the order of the core's rooms (issue 34; `Docs/Design.md`, "Rooms that call one way"): each folder of
/// `Sources/BeeHive` is a room, and a room uses only the rooms below it in ``order``. Reads the sources, builds
/// nothing.
///
/// What counts as a use, read from the text with comments and string literals left out:
/// - a type declared at the top level of a room's file (`struct`, `class`, `enum`, `protocol`, `typealias`), named
///   anywhere in another room's file;
/// - a member that a room adds to `Hive` (an `extension Hive` at the top level: `func` or `var`, not private), called
///   or read (`name(` or `.name`) in another room's file, when no other declaration in the target has that name (a
///   name declared twice cannot be told apart without the compiler).
///
/// `Hive` itself, the class every room extends, and its shared instance (``facade``) are every room's to name: the
/// runtime's diagnostics go to the shared hive when no hive asked (`Binding/RuntimeBinding.swift`).
@Suite("The core's rooms call one way")
struct RoomLayeringTests {
    /// The rooms, from the top down: a room may use the rooms after it, never one before it.
    static let order = [
        "Hive", "Report", "Plugins", "Leases", "Services", "Ingestion", "Timeline", "Contracts", "Registry",
        "Observation", "Binding", "Diagnostics", "Declarations", "Telemetry", "Support",
    ]

    /// What every room may name: the class the rooms extend, and the shared hive.
    static let facade: Set<String> = ["Hive", "shared", "sharedIfCreated"]

    /// One Swift file of the core: its room, its name, and what its text declares and uses.
    struct SourceFile {
        let room: String
        let name: String
        /// Types declared at the top level.
        let types: Set<String>
        /// Members added to `Hive` by a top-level `extension Hive`, but private ones.
        let hiveMembers: Set<String>
        /// Every name declared with `func`, `var`, `let` or `case`, at any depth, with repeats.
        let declaredNames: [String]
        /// Every identifier of the text.
        let identifiers: Set<String>
        /// Identifiers called or read as members: followed by `(` or preceded by `.`.
        let memberUses: Set<String>
    }

    static let sources = root.appendingPathComponent("Sources/BeeHive")
    static let root = Command.repository

    /// The rooms found on disk: the folders of `Sources/BeeHive` that hold Swift files.
    static func rooms() -> [String] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        return folders.filter { folder in
            let files =
                (try? FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent(folder).path))
            return files?.contains { $0.hasSuffix(".swift") } == true
        }.sorted()
    }

    static func read() -> [SourceFile] {
        rooms().flatMap { room -> [SourceFile] in
            let folder = sources.appendingPathComponent(room)
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
                $0.hasSuffix(".swift")
            }
            return names.sorted().map { name in
                let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
                return SourceFile(room: room, name: name, code: code(of: text))
            }
        }
    }

    /// `text` without comments and string literals' contents.
    static func code(of text: String) -> String {
        var out = ""
        var characters = Array(text)[...]
        while let character = characters.first {
            if characters.starts(with: "//") {
                characters = characters.drop { $0 != "\n" }
            } else if characters.starts(with: "/*") {
                let rest = characters.dropFirst(2)
                let end = rest.indices.first { rest[$0...].starts(with: "*/") } ?? rest.endIndex
                characters = rest[end...].dropFirst(2)
            } else if characters.starts(with: "\"\"\"") {
                let rest = characters.dropFirst(3)
                let end = rest.indices.first { rest[$0...].starts(with: "\"\"\"") } ?? rest.endIndex
                characters = rest[end...].dropFirst(3)
                out += "\"\""
            } else if character == "\"" {
                var rest = characters.dropFirst()
                while let next = rest.first, next != "\"", next != "\n" {
                    rest = rest.dropFirst(next == "\\" ? 2 : 1)
                }
                characters = rest.dropFirst()
                out += "\"\""
            } else {
                out.append(character)
                characters = characters.dropFirst()
            }
        }
        return out
    }

    @Test("Every folder of Sources/BeeHive is a room of the stated order")
    func everyFolderIsARoom() {
        #expect(Set(Self.rooms()) == Set(Self.order))
    }

    @Test("No room names a type declared in a room above it, or calls what a room above it adds to Hive")
    func roomsCallOneWay() {
        let files = Self.read()
        #expect(files.count > 50)
        let rank = Dictionary(uniqueKeysWithValues: Self.order.enumerated().map { ($1, $0) })
        var owner: [String: String] = [:]
        for file in files {
            for type in file.types where !Self.facade.contains(type) { owner[type] = file.room }
        }
        let declaredCount = files.flatMap(\.declaredNames).reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        var memberOwner: [String: String] = [:]
        for file in files {
            for member in file.hiveMembers where declaredCount[member] == 1 && !Self.facade.contains(member) {
                memberOwner[member] = file.room
            }
        }
        #expect(owner.count > 50 && memberOwner.count > 20)

        var upward: [String] = []
        for file in files {
            guard let own = rank[file.room] else { continue }
            for type in file.identifiers {
                if let room = owner[type], let other = rank[room], other < own {
                    upward.append("\(file.room)/\(file.name) names \(type), a type of \(room)")
                }
            }
            for member in file.memberUses {
                if let room = memberOwner[member], let other = rank[room], other < own {
                    upward.append("\(file.room)/\(file.name) uses Hive.\(member), which \(room) adds")
                }
            }
        }
        #expect(upward.sorted() == [], "expected no room to use one above it in RoomLayeringTests.order")
    }
}

extension RoomLayeringTests.SourceFile {
    init(room: String, name: String, code: String) {
        self.room = room
        self.name = name
        let lines = code.split(separator: "\n", omittingEmptySubsequences: false)
        var types: Set<String> = []
        var hiveMembers: Set<String> = []
        var declaredNames: [String] = []
        var inHiveExtension = false
        let typeKeywords: Set<Substring> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
        let memberKeywords: Set<Substring> = ["func", "var", "let", "case"]
        for line in lines {
            let words = line.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "@") }
            let topLevel = !(line.first?.isWhitespace ?? true)
            if topLevel {
                inHiveExtension =
                    words.first == "extension" && words.dropFirst().first == "Hive"
                    && !line.dropFirst("extension Hive".count).hasPrefix(".")
                if let keyword = words.firstIndex(where: { typeKeywords.contains($0) }), keyword + 1 < words.count,
                    words[..<keyword].allSatisfy({ $0.hasPrefix("@") || Self.modifiers.contains($0) })
                {
                    types.insert(String(words[keyword + 1]))
                }
                continue
            }
            guard let keyword = words.firstIndex(where: { memberKeywords.contains($0) }), keyword + 1 < words.count,
                words[..<keyword].allSatisfy({ $0.hasPrefix("@") || Self.modifiers.contains($0) })
            else { continue }
            let name = String(words[keyword + 1])
            declaredNames.append(name)
            let depth = line.prefix { $0 == " " }.count
            if inHiveExtension, depth == 4, words[keyword] != "let", words[keyword] != "case",
                !words[..<keyword].contains(where: { $0 == "private" || $0 == "fileprivate" })
            {
                hiveMembers.insert(name)
            }
        }
        self.types = types
        self.hiveMembers = hiveMembers
        self.declaredNames = declaredNames

        var identifiers: Set<String> = []
        var memberUses: Set<String> = []
        var index = code.startIndex
        while index < code.endIndex {
            let character = code[index]
            guard character.isLetter || character == "_" else {
                index = code.index(after: index)
                continue
            }
            let start = index
            while index < code.endIndex, code[index].isLetter || code[index].isNumber || code[index] == "_" {
                index = code.index(after: index)
            }
            let identifier = String(code[start..<index])
            identifiers.insert(identifier)
            let dotted = start > code.startIndex && code[code.index(before: start)] == "."
            let called = index < code.endIndex && code[index] == "("
            if dotted || called { memberUses.insert(identifier) }
        }
        self.identifiers = identifiers
        self.memberUses = memberUses
    }

    /// Words that may come before a declaration's keyword.
    static let modifiers: Set<Substring> = [
        "public", "package", "internal", "fileprivate", "private", "final", "indirect", "nonisolated", "static",
        "mutating", "override", "class", "set", "lazy", "weak", "unowned", "open", "consuming", "borrowing",
        "nonmutating", "convenience", "required", "dynamic",
    ]
}

extension RoomLayeringTests {
    @Test("The reader sees top-level types, what an extension of Hive adds, and uses outside comments and strings")
    func readerSeesDeclarationsAndUses() {
        let text = """
            struct Table {
                var count = 0
            }
            extension Hive {
                func register(_ table: Table) {}
                private func helper() {}
                var size: Int { 0 }
            }
            extension Hive.Plugins {
                func load() {}
            }
            // Ledger.post() in a comment
            let note = "Ledger.post() in a string"
            let used = hive.lookUp(Ledger.self)
            """
        let file = RoomLayeringTests.SourceFile(
            room: "Room", name: "File.swift", code: RoomLayeringTests.code(of: text))
        #expect(file.types == ["Table"])
        #expect(file.hiveMembers == ["register", "size"])
        #expect(Set(file.declaredNames) == ["count", "register", "helper", "size", "load"])
        #expect(file.identifiers.contains("Ledger") && file.memberUses.contains("lookUp"))
        #expect(!file.memberUses.contains("post"))
    }
}
