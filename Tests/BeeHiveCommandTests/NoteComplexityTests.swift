import Foundation
import Testing

/// Whether valgrind (callgrind) can count instructions here.
enum Valgrind {
    static let isInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind")
}

/// The tool's file reader (`CSupport/_BeeHiveInspect/inspect.c`) on objects built here with many notes, huge
/// notes and many named sections: doubling the input at most doubles the work, counted in instructions by
/// callgrind (never in seconds). Comparing every pair of note entries made 60,000 one-entry notes take half a
/// minute and four 1 MiB notes twelve minutes.
@Suite(
    "The tool's reader: notes cost linear work (callgrind instruction counts)", .serialized,
    .enabled(if: Valgrind.isInstalled, "needs valgrind (apt-get install valgrind)"))
struct NoteComplexityTests {
    /// A program that reads one file with bh_inspect_open and prints what it found.
    static let harness = """
        #include "bh_inspect.h"
        #include <stdio.h>
        int main(int argc, char **argv) {
            bh_inspect_file *file = bh_inspect_open(argv[1], 0);
            if (!file || file->error) return 2;
            size_t notes = 0, entries = 0, problems = 0, sections = 0;
            for (size_t i = 0; i < file->image_count; i++) {
                notes += file->images[i].note_count;
                problems += file->images[i].problem_count;
                sections += file->images[i].section_count;
                for (size_t n = 0; n < file->images[i].note_count; n++) entries += file->images[i].notes[n].entry_count;
            }
            printf("%zu %zu %zu %zu\\n", notes, entries, problems, sections);
            bh_inspect_close(file);
            return 0;
        }
        """

    /// The folder with the harness built, once.
    static let bench: Result<URL, Tool.Failure> = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "beehive-note-complexity-\(getpid())")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(harness.utf8).write(to: folder.appendingPathComponent("harness.c"))
            let support = Tool.repository.appendingPathComponent("CSupport")
            try Tool.succeed(
                "cc",
                [
                    "-O2", "-g", "-I" + support.appendingPathComponent("_BeeHiveInspect/include").path,
                    "-I" + support.appendingPathComponent("_BeeHiveFormat/include").path, "harness.c",
                    support.appendingPathComponent("_BeeHiveInspect/inspect.c").path, "-lelf", "-o", "harness",
                ], in: folder)
            return .success(folder)
        } catch let failure as Tool.Failure {
            return .failure(failure)
        } catch {
            return .failure(Tool.Failure(description: "\(error)"))
        }
    }()

    /// An object whose BeeHive notes are `notes` notes of `entries` entries each, spread over note sections of at
    /// most `perSection` notes; entry `i` of the object is `name(i)`.
    static func object(
        named file: String, notes: Int, entries: Int, perSection: Int, name: (Int) -> String
    ) throws -> String {
        let folder = try bench.get()
        var assembly = ""
        var index = 0
        for note in 0..<notes {
            if note % perSection == 0 { assembly += ".section .note.beehive.\(note / perSection),\"a\",%note\n" }
            var descriptor = 4
            var strings = ""
            for _ in 0..<entries {
                let entry = name(index)
                index += 1
                descriptor += entry.utf8.count + 1
                strings += ".asciz \"\(entry)\"\n"
            }
            assembly +=
                ".balign 4\n.long 8\n.long \(descriptor)\n.long 1\n.asciz \"BeeHive\"\n.long 2\n\(strings).balign 4\n"
        }
        try Data(assembly.utf8).write(to: folder.appendingPathComponent(file + ".s"))
        try Tool.succeed("cc", ["-c", file + ".s", "-o", file + ".o"], in: folder)
        return folder.appendingPathComponent(file + ".o").path
    }

    /// The instructions `bh_inspect_open` runs on `file` (callgrind), and the harness's counts.
    static func work(_ file: String) throws -> (instructions: UInt64, counts: [Int]) {
        let folder = try bench.get()
        let out = folder.appendingPathComponent("callgrind.out").path
        let counts = try Tool.succeed(
            "valgrind",
            [
                "--tool=callgrind", "--callgrind-out-file=\(out)", "--toggle-collect=bh_inspect_open",
                folder.appendingPathComponent("harness").path, file,
            ]
        ).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let total = text.split(separator: "\n").first { $0.hasPrefix("summary:") || $0.hasPrefix("totals:") }
        let instructions = try #require(total.flatMap { UInt64($0.split(separator: " ").last ?? "") })
        return (instructions, counts)
    }

    /// Runs `make` at sizes `n` and `2n`; expects at most twice the work (and a little for fixed costs).
    static func expectLinear(
        _ what: String, n: Int, make: (Int) throws -> String, check: (Int, [Int]) -> Bool
    ) throws {
        let small = try work(make(n))
        let large = try work(make(2 * n))
        #expect(check(n, small.counts), "\(what), n = \(n): \(small.counts)")
        #expect(check(2 * n, large.counts), "\(what), n = \(2 * n): \(large.counts)")
        let ratio = Double(large.instructions) / Double(small.instructions)
        #expect(ratio < 2.25, "\(what): \(small.instructions) instructions at n = \(n), \(large.instructions) at 2n")
    }

    @Test("many one-entry notes alike (the Swift macros write one per annotation)")
    func manyNotesAlike() throws {
        try Self.expectLinear(
            "notes alike", n: 10_000,
            make: { n in
                try Self.object(named: "alike-\(n)", notes: n, entries: 1, perSection: 10_000) { _ in
                    "services=beehive_services"
                }
            },
            check: { n, counts in counts == [n, n, 0, 0] })
    }

    @Test("many notes naming distinct sections")
    func manyDistinctSections() throws {
        try Self.expectLinear(
            "distinct sections", n: 10_000,
            make: { n in
                try Self.object(named: "distinct-\(n)", notes: n, entries: 1, perSection: 10_000) { "services=s\($0)" }
            },
            check: { n, counts in counts == [n, n, 0, 0] })
    }

    @Test("huge notes (tens of thousands of entries each)")
    func hugeNotes() throws {
        try Self.expectLinear(
            "huge notes", n: 2,
            make: { n in
                try Self.object(named: "huge-\(n)", notes: n, entries: 30_000, perSection: 1) { "routes=r\($0 % 500)" }
            },
            check: { n, counts in counts == [n, n * 30_000, 0, 0] })
    }

    @Test("one section named for two kinds by thousands of notes: one problem, linear work")
    func conflictingKinds() throws {
        try Self.expectLinear(
            "conflicting kinds", n: 10_000,
            make: { n in
                try Self.object(named: "conflict-\(n)", notes: n, entries: 1, perSection: 10_000) {
                    $0 % 2 == 0 ? "services=shared" : "modules=shared"
                }
            },
            check: { n, counts in counts == [n, n, 1, 0] })
    }
}
