import Foundation
import Testing

@Suite("Real binaries: modules and Linux signals in a child process", .serialized)
struct SignalTests {
    /// Reads the child's output until `marker` appears or `seconds` pass.
    func read(_ handle: FileHandle, until marker: String, into output: inout String, seconds: Double = 10) {
        let deadline = Date().addingTimeInterval(seconds)
        while !output.contains(marker) && Date() < deadline {
            let data = handle.availableData
            if data.isEmpty { break }
            output += String(decoding: data, as: UTF8.self)
        }
    }

    @Test("SIGHUP delivers reload; SIGTERM delivers willTerminate then tearDown in reverse order, then exits 0")
    func signals() throws {
        let binary = try FixturePackage.products("debug").appendingPathComponent("LifecycleApp")
        let process = Process()
        process.executableURL = binary
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let handle = pipe.fileHandleForReading
        var output = ""
        read(handle, until: "ready", into: &output)
        #expect(output.contains("ready"))
        let started = output.split(separator: "\n").map(String.init)
        #expect(
            started.filter { $0.hasSuffix(".setUp") } == [
                "StorageModule.setUp", "FeedModule.setUp", "ShellModule.setUp",
            ])
        #expect(
            started.filter { $0.hasSuffix(".init") }.sorted() == [
                "FeedModule.init", "ShellModule.init", "StorageModule.init",
            ])
        #expect(started.filter { $0.hasSuffix(".splash") }.count == 3)

        kill(process.processIdentifier, SIGHUP)
        read(handle, until: "ShellModule.reload", into: &output)
        kill(process.processIdentifier, SIGTERM)
        read(handle, until: "exit after signal", into: &output)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains(".reload") }.count == 3)
        #expect(lines.filter { $0.contains(".reload") }.allSatisfy { $0.hasSuffix("signal=1") })
        let shutdown = lines.drop { !$0.contains("willTerminate") }
        #expect(
            Array(shutdown) == [
                "StorageModule.willTerminate signal=15", "FeedModule.willTerminate signal=15",
                "ShellModule.willTerminate signal=15", "ShellModule.tearDown", "FeedModule.tearDown",
                "StorageModule.tearDown", "exit after signal 15",
            ])
    }
}
