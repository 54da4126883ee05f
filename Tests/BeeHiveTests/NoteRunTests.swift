import BeeHiveTestSupport
import Foundation
import Testing

@testable import BeeHive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The Swift macros write one note per annotation, all alike and side by side; the scanner skips a run of them in a
/// few comparisons. A note that differs, inside a run or at its very end, must still be read.
@Suite("Real binaries: runs of notes alike are skipped, a different note among them is read", .serialized)
struct NoteRunTests {
    /// A C plugin whose notes are runs of one note (naming `beehive_services`) broken by two notes that name other
    /// sections, one in the middle and one last; each section holds one record.
    static func source(run: Int) -> String {
        func note(_ section: String) -> String {
            #"".balign 4\n.long 8\n.long 2f - 1f\n.long 1\n.asciz \"BeeHive\"\n.balign 4\n""# + "\n"
                + #""1:\n.long 2\n.asciz \"services=\#(section)\"\n2:\n.balign 4\n""# + "\n"
        }
        let alike = String(repeating: note("beehive_services"), count: run)
        return """
            #define BH_NO_IMAGE_NOTE
            #include <beehive.h>

            BH_SERVICE(NoteRun.First, NoteRun.FirstImpl)
            BH_RECORD("second_services", "{\\"service\\":\\"NoteRun.Second\\",\\"impl\\":\\"NoteRun.SecondImpl\\"}");
            BH_RECORD("third_services", "{\\"service\\":\\"NoteRun.Third\\",\\"impl\\":\\"NoteRun.ThirdImpl\\"}");

            __asm__(".pushsection .note.beehive,\\"a\\",%note\\n"
            \(alike)\(note("second_services"))\(alike)\(note("third_services"))
                    ".popsection\\n");
            """
    }

    @Test("a note among copies and a note after them both name their sections", arguments: [1, 2, 7, 64])
    func differentNotesAmongCopies(run: Int) throws {
        try imageLoading.withLock { _ in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "beehive-note-run-\(getpid())-\(run)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let plugin = try Command.buildCPlugin(Self.source(run: run), named: "libnoterun\(run).so", in: folder)
            let handle = try #require(dlopen(plugin, RTLD_NOW | RTLD_LOCAL))
            defer { dlclose(handle) }
            let hive = Hive(options: Hive.Options(scansLoadedImages: true))
            hive.rescan()
            #expect(hive.registration(for: "NoteRun.First")?.implementation == "NoteRun.FirstImpl")
            #expect(hive.registration(for: "NoteRun.Second")?.implementation == "NoteRun.SecondImpl")
            #expect(hive.registration(for: "NoteRun.Third")?.implementation == "NoteRun.ThirdImpl")
            #expect(!hive.diagnostics.contains { $0.source?.imagePath == plugin }, "\(hive.diagnostics)")
        }
    }
}
