import BeeHiveTestSupport
import Foundation
import Testing

/// Record format 3: the image note places the record sections in memory, so a program's records register where its
/// file cannot be read, lies, or has lost its section headers.
@Suite("Real binaries: records found in memory where files lie", .serialized)
struct RecordsInMemoryTests {
    static let services =
        "AnnotatedApp.Clock,AnnotatedApp.Counter,AnnotatedApp.Greeter,AnnotatedApp.Greeter,AnnotatedApp.Storage"

    /// A copy of the debug AnnotatedApp in a folder of its own, removed by `body`'s end.
    static func withCopy(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-in-memory-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("AnnotatedApp")
        // Copied by another process: a descriptor open for writing in this one, inherited by a child another test
        // forks meanwhile, would make the copy "busy" (ETXTBSY) when it is run.
        let original = try FixturePackage.products("debug").appendingPathComponent("AnnotatedApp")
        try Command.run("cp", [original.path, copy.path])
        try body(copy)
    }

    static func expectAllRegistered(_ output: String) {
        let result = Command.keyValues(output)
        #expect(result["registrations"] == "5", "\(output)")
        #expect(result["services"] == services)
        #expect(result["greet"] == "hello")
        #expect(result["modules"] == "AnnotatedApp.NetworkModule:0:100:true,AnnotatedApp.LoginModule:1:10:false")
        #expect(result["routes"] == "app://user/:id=AnnotatedApp.UserRoute")
        #expect(result["diagnostics"] == "0", "\(output)")
        #expect(result["imagesOpened"] == "0")
    }

    /// A mount namespace of its own: as root, or else in a user namespace, which gives the right to unmount.
    static let namespace = getuid() == 0 ? ["--mount"] : ["--map-root-user", "--mount"]

    /// Whether this machine lets a process have a mount namespace of its own (a container without
    /// `CAP_SYS_ADMIN` and without user namespaces does not).
    static let canUnmountProc = (try? Command.run("unshare", namespace + ["--propagation", "private", "true"])) != nil

    @Test(
        "with /proc not mounted (a mount namespace without it), every record registers",
        .enabled(if: canUnmountProc, "this machine allows no mount namespace of a process's own"))
    func withoutProc() throws {
        let binary = try FixturePackage.products("debug").appendingPathComponent("AnnotatedApp").path
        let script = "umount -l /proc && test ! -e /proc/self && exec \"$0\""
        let output = try Command.run(
            "unshare", Self.namespace + ["--propagation", "private", "sh", "-c", script, binary])
        Self.expectAllRegistered(output)
    }

    @Test("with its section headers stripped (llvm-objcopy --strip-sections), every record registers")
    func strippedSections() throws {
        try Self.withCopy { copy in
            try Command.run("llvm-objcopy", ["--strip-sections", copy.path])
            #expect(try Command.run("readelf", ["-hW", copy.path]).contains("Number of section headers:         0"))
            Self.expectAllRegistered(try Command.run(copy.path, []))
        }
    }

    @Test("with its file renamed over by another program after it was loaded, every record registers")
    func replacedAfterLoad() throws {
        try Self.withCopy { copy in
            let folder = copy.deletingLastPathComponent()
            let go = folder.appendingPathComponent("go")
            let process = Process()
            process.executableURL = copy
            process.arguments = ["--wait-for", go.path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Once it says it waits, the program is loaded and its startup scan ran; its file becomes another program
            // before the hive's first use reads the records.
            var data = Data()
            while !String(decoding: data, as: UTF8.self).contains("waiting=1") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                data += chunk
            }
            let other = folder.appendingPathComponent("other")
            try Command.run("cp", ["/bin/true", other.path])
            #expect(rename(other.path, copy.path) == 0)
            #expect(FileManager.default.createFile(atPath: go.path, contents: Data()))
            data += output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            Self.expectAllRegistered(String(decoding: data, as: UTF8.self))
        }
    }
}
