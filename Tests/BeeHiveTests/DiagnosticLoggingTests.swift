import BeeHiveTesting
import Foundation
import Testing

@testable import BeeHive

@Suite("Diagnostics are logged, with their code and source")
struct DiagnosticLoggingTests {
    @Test("a duplicate is a warning; in strict mode an error logged as critical, and register throws")
    func duplicates() throws {
        let recorder = LogRecorder()
        let hive = Hive.forTesting(recorder: recorder)
        try hive.register(Storage.self, fileID: "App/First.swift", line: 3) { _ in MemoryStorage() }
        try hive.register(Storage.self, fileID: "App/Second.swift", line: 7) { _ in MemoryStorage() }
        let warning = try #require(recorder.entries.first, "\(recorder.entries)")
        #expect(warning.level == .warning)
        #expect(warning.metadata["code"] == "duplicateRegistration")
        #expect(warning.metadata["source"] == "code App/Second.swift:7")
        #expect(warning.message.contains("App/First.swift:3"), "the message names the registration that won")

        let strictRecorder = LogRecorder()
        let strict = Hive.forTesting(isStrict: true, recorder: strictRecorder)
        try strict.register(Storage.self) { _ in MemoryStorage() }
        #expect(throws: HiveError.self) { try strict.register(Storage.self) { _ in MemoryStorage() } }
        #expect(strictRecorder.entries.map(\.level) == [.critical])
    }

    @Test("every bad entry of a file is logged as an error naming the file and entry; the good ones register")
    func fileEntries() throws {
        let recorder = LogRecorder()
        let hive = Hive.forTesting(recorder: recorder)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-log-\(UUID()).json").path
        try Data(#"[{"service":"App.A","impl":"App.AImpl"},{"service":"App.B"},{"impl":null}]"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let problems = try hive.loadServices(from: path)
        #expect(problems.count == 2)
        #expect(hive.registration(for: "App.A") != nil)
        let logged = recorder.entries
        #expect(logged.count == 2, "\(logged)")
        #expect(logged.allSatisfy { $0.level == .error && $0.metadata["code"] == "malformedEntry" })
        #expect(
            logged.map { $0.metadata["source"] ?? "" } == ["file \(path), entry 1", "file \(path), entry 2"],
            "\(logged)")
    }
}
