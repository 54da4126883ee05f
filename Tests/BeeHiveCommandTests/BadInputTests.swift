import Foundation
import Testing

@Suite("Bad input: one line naming the file and the reason, exit status 2, and the other files still read")
struct BadInputTests {
    /// A file that cannot be read, and what the tool must say about it.
    struct Case: Sendable, CustomTestStringConvertible {
        /// The file's name in the workbench folder.
        var name: String
        /// Makes the file, given the workbench.
        var make: @Sendable (Workbench) throws -> Void
        /// What the error line must say, after `beehive: <path>: `.
        var reason: String

        var testDescription: String { "\(name): \(reason)" }
    }

    static let cases: [Case] = [
        Case(
            name: "notes.txt", make: { try write("release notes\n", $0.path("notes.txt")) },
            reason: "is not an ELF file or an ar archive (14 bytes, starting 72 65 6c 65 \"rele\")"),
        Case(
            name: "empty", make: { try write("", $0.path("empty")) },
            reason: "is empty; expected an ELF file or an ar archive"),
        Case(
            name: "elf-header-cut", make: { try truncate($0.path("app"), to: 40, into: $0.path("elf-header-cut")) },
            reason: "has the ELF magic but only 40 bytes; expected at least a 64-byte ELF header (truncated?)"),
        Case(
            name: "a-directory",
            make: {
                try FileManager.default.createDirectory(
                    atPath: $0.path("a-directory"), withIntermediateDirectories: true)
            },
            reason: "is a directory; expected an ELF file or an ar archive"),
        Case(name: "no-such-file", make: { _ in }, reason: "cannot be opened: No such file or directory"),
        Case(
            name: "a-fifo", make: { bench in _ = mkfifo(bench.path("a-fifo"), 0o644) },
            reason: "is a FIFO; expected an ELF file or an ar archive"),
        Case(
            name: "libthin.a", make: { try Tool.succeed("ar", ["rcsT", "libthin.a", "records.o"], in: $0.folder) },
            reason: "is a thin archive (ar T), whose members are separate files"),
    ]

    static func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    static func truncate(_ source: String, to count: Int, into path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        try data.prefix(count).write(to: URL(fileURLWithPath: path))
    }

    @Test("an unreadable input", arguments: cases)
    func unreadable(_ input: Case) throws {
        let bench = try Workbench.shared.get()
        try input.make(bench)
        let path = bench.path(input.name)
        for format in ["table", "json"] {
            let output = try Tool.beehive(["inspect", "--format", format, path, bench.path("records.o")])
            #expect(output.status == 2, "\(output)")
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(output)")
            #expect(lines.first?.hasPrefix("beehive: \(path): \(input.reason)") == true, "\(output)")
            // The good file given after it is still listed.
            #expect(output.stdout.contains("App.ConsoleTracker"), "\(output)")
        }
        let (json, _) = try Tool.inspectJSON([path])
        #expect(json.files.first?.error?.hasPrefix(input.reason) == true)
        #expect(json.files.first?.images.isEmpty == true)
    }

    @Test("an executable cut short: its section headers lie past the end of the file; status 2 and a line on stderr")
    func truncatedExecutable() throws {
        let bench = try Workbench.shared.get()
        let path = bench.path("app-cut")
        let size = try FileManager.default.attributesOfItem(atPath: bench.path("app"))[.size] as? Int ?? 0
        try Self.truncate(bench.path("app"), to: size / 2, into: path)
        let (json, output) = try Tool.inspectJSON([path, bench.path("records.o")])
        #expect(output.status == 2, "\(output)")
        let problems = json.files.first?.images.first?.problems ?? []
        #expect(problems.count == 1)
        #expect(problems.first?.contains("section headers at file offset 0x") == true)
        #expect(problems.first?.contains("lie past the end of the file (\(size / 2) bytes: truncated?)") == true)
        // One line on standard error naming the file and what is wrong; the good file is still listed.
        let lines = output.stderr.split(separator: "\n").map(String.init)
        #expect(lines == ["beehive: \(path): \(problems.first ?? "")"], "\(output)")
        #expect(output.stdout.contains("App.ConsoleTracker"))
        for command in [["inspect", path], ["check", path]] {
            let result = try Tool.beehive(command)
            #expect(result.status == 2, "\(command): \(result)")
            #expect(result.stderr.hasPrefix("beehive: \(path): its "), "\(command): \(result)")
            #expect(result.stderr.contains("lie past the end of the file"), "\(command): \(result)")
        }
        let check = try Tool.beehive(["check", path])
        #expect(check.stdout.contains("\(path): error: its "), "\(check)")
        #expect(check.stdout.contains("1 file not read whole"), "\(check)")
    }

    @Test("an archive cut in the middle of a member: the members before it are read, the rest reported; status 2")
    func truncatedArchive() throws {
        let bench = try Workbench.shared.get()
        let path = bench.path("librecords-cut.a")
        let size = try FileManager.default.attributesOfItem(atPath: bench.path("librecords.a"))[.size] as? Int ?? 0
        try Self.truncate(bench.path("librecords.a"), to: size - 100, into: path)
        for command in ["check", "inspect"] {
            let output = try Tool.beehive([command, path])
            #expect(output.status == 2, "\(command): \(output)")
            // Nothing crashed, and the problem names the file, on standard output and on standard error.
            #expect(output.stdout.contains(path), "\(command): \(output)")
            #expect(output.stderr.hasPrefix("beehive: \(path)"), "\(command): \(output)")
        }
    }

    @Test("a section past the end of the file: status 2, the section named on stderr")
    func sectionPastTheEnd() throws {
        let bench = try Workbench.shared.get()
        // records.o with its section headers moved to the front is not easy to make; instead point a record
        // section's sh_offset past the end: patch the section header of beehive_services in a copy.
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: bench.path("records.o"))))
        var bytes = original
        let headerOffset = Int(Self.little(bytes, 0x28, 8))
        let headerSize = Int(Self.little(bytes, 0x3A, 2))
        let count = Int(Self.little(bytes, 0x3C, 2))
        let namesIndex = Int(Self.little(bytes, 0x3E, 2))
        let namesOffset = Int(Self.little(bytes, headerOffset + namesIndex * headerSize + 0x18, 8))
        var patched = false
        for index in 0..<count {
            let header = headerOffset + index * headerSize
            let nameStart = namesOffset + Int(Self.little(bytes, header, 4))
            let name = String(decoding: bytes[nameStart...].prefix { $0 != 0 }, as: UTF8.self)
            guard name == "beehive_services" else { continue }
            let past = UInt64(bytes.count + 4096)
            for byte in 0..<8 { bytes[header + 0x18 + byte] = UInt8(truncatingIfNeeded: past >> (8 * byte)) }
            patched = true
        }
        try #require(patched, "expected a beehive_services section in records.o")
        let path = bench.path("records-section-past-end.o")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        for command in ["inspect", "check"] {
            let output = try Tool.beehive([command, path])
            #expect(output.status == 2, "\(command): \(output)")
            #expect(
                output.stderr.hasPrefix("beehive: \(path): section beehive_services (index "),
                "\(command): \(output)")
            #expect(output.stderr.contains("past the end of the file"), "\(command): \(output)")
        }
    }

    /// The little-endian integer of `size` bytes at `offset`.
    static func little(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> UInt64 {
        (0..<size).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    @Test(
        "a file the user may not read (run as nobody)",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    )
    func permissionDenied() throws {
        let bench = try Workbench.shared.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-unreadable-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("secret.o").path
        let open = folder.appendingPathComponent("open.o").path
        try FileManager.default.copyItem(atPath: bench.path("records.o"), toPath: secret)
        try FileManager.default.copyItem(atPath: bench.path("records.o"), toPath: open)
        chmod(folder.path, 0o755)
        chmod(secret, 0o000)
        chmod(open, 0o644)
        let output = try Tool.beehive(["inspect", secret, open], as: "65534")
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr == "beehive: \(secret): cannot be opened: Permission denied\n")
        #expect(output.stdout.contains("App.ConsoleTracker"))
    }

    @Test("usage errors exit with status 2")
    func usage() throws {
        for arguments in [["inspect"], ["check"], ["frobnicate"], ["inspect", "--format", "xml", "x"], ["migrate"]] {
            let output = try Tool.beehive(arguments)
            #expect(output.status == 2, "\(arguments): \(output)")
            #expect(output.stderr.contains("Error:"), "\(arguments): \(output)")
        }
        #expect(try Tool.beehive(["--help"]).status == 0)
        #expect(try Tool.beehive(["inspect", "--help"]).status == 0)
    }
}
