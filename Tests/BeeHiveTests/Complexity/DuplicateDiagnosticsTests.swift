import Foundation
import Testing

@testable import BeeHive

@Suite("Duplicates: each costs O(1), the first 10 of a key are listed, the rest counted, none dropped silently")
struct DuplicateDiagnosticsTests {
    /// Writes `contents` to a new temporary file; returns its path.
    func file(_ contents: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-dup-\(UUID().uuidString).json")
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    @Test("1,000 entries for one service: the first wins, 10 duplicates listed, one diagnostic counts the other 989")
    func manyServiceDuplicates() throws {
        let path = try file(
            "[" + (0..<1_000).map { "{\"service\":\"App.S\",\"impl\":\"App.I\($0)\"}" }.joined(separator: ",") + "]")
        let hive = Hive()
        let problems = try hive.loadServices(from: path)
        #expect(problems.count == 11)
        #expect(problems.allSatisfy { $0.code == .duplicateRegistration && $0.severity == .warning })
        #expect(problems.prefix(10).map(\.source?.entryIndex) == Array(1...10))
        #expect(problems[0].message.contains("found App.I1 here and App.I0 registered before by file \(path), entry 0"))
        let summary = problems[10]
        #expect(summary.source?.entryIndex == 999, "named at the last duplicate")
        #expect(summary.message.contains("found 989 more registrations of it after the 10 listed"), "\(summary)")
        #expect(summary.message.contains("App.I0 registered by file \(path), entry 0 is kept"), "\(summary)")
        #expect(hive.serviceRegistrations.map(\.implementation) == ["App.I0"])
        #expect(hive.diagnostics.count == 11)
    }

    @Test("1,000 declarations of one module: 10 listed, one counts the rest")
    func manyModuleDuplicates() throws {
        let entries = (0..<1_000).map { "{\"moduleClass\":\"App.M\",\"modulePriority\":\($0)}" }
        let path = try file("{\"moduleClasses\":[" + entries.joined(separator: ",") + "]}")
        let hive = Hive()
        let problems = try hive.loadModules(from: path)
        #expect(problems.count == 11)
        #expect(problems.last?.message.contains("found 989 more declarations of it after the 10 listed") == true)
        #expect(hive.moduleDeclarations.map(\.priority) == [0])
    }

    @Test("duplicates of a service registered before the file: every entry of the file loses to it")
    func duplicatesOfAnEarlierRegistration() throws {
        let hive = Hive()
        try hive.register(service: "App.S", impl: "App.Code")
        let path = try file(
            "[" + (0..<12).map { "{\"service\":\"App.S\",\"impl\":\"App.I\($0)\"}" }.joined(separator: ",") + "]")
        let problems = try hive.loadServices(from: path)
        #expect(problems.count == 11)
        #expect(problems.first?.source?.entryIndex == 0, "the file's first entry is a duplicate too")
        #expect(problems.first?.message.contains("App.Code registered before by code") == true)
        #expect(problems.last?.message.contains("found 2 more registrations") == true)
        #expect(hive.serviceRegistrations.map(\.implementation) == ["App.Code"])
    }

    @Test("strict mode throws the first duplicate, after registering the first entry")
    func strictModeThrowsTheFirst() throws {
        let hive = Hive(options: .init(isStrict: true))
        let path = try file(
            "[" + (0..<50).map { "{\"service\":\"App.S\",\"impl\":\"App.I\($0)\"}" }.joined(separator: ",") + "]")
        let error = #expect(throws: HiveError.self) { try hive.loadServices(from: path) }
        #expect(error?.code == .duplicateRegistration)
        #expect(error?.source?.entryIndex == 1)
        #expect(hive.serviceRegistrations.map(\.implementation) == ["App.I0"])
    }

    @Test("a shadow per origin: a duplicate of a file's registration is never queued (files are never withdrawn)")
    func shadowsPerOrigin() {
        var state = RegistryState()
        let key = "App.S"
        func entry(_ impl: String, _ source: RegistrationSource) -> ServiceEntry {
            ServiceEntry(
                ServiceRegistration(service: key, implementation: impl, source: source), .typeName(impl))
        }
        let image = { (id: UInt64, offset: Int) in
            RegistrationSource.annotation(image: "/lib\(id).so", section: "s", offset: offset, imageID: id)
        }
        let first = entry("A0", image(1, 0))
        #expect(state.add(first) === first)
        for offset in 1..<100 {
            #expect(state.add(entry("A\(offset)", image(1, offset))).registration.implementation == "A0")
        }
        for offset in 0..<100 { _ = state.add(entry("B\(offset)", image(2, offset))) }
        for index in 0..<100 { _ = state.add(entry("F\(index)", .file("/etc/f.json", index: index))) }
        for offset in 0..<100 { _ = state.add(entry("C\(offset)", image(3, offset))) }
        // One shadow per origin, in order, none after the first permanent one.
        let shadows = state.shadowedServices[RegistrationKey(service: key, name: nil)]?.queue
        #expect(shadows?.map(\.element.registration.implementation) == ["B0", "F0"])
        // Unloading the winner's image reinstates the first shadow whose image is there; then the file's.
        let withdrawal = state.withdraw(image: 1, reason: "image 1 was unloaded")
        #expect(withdrawal.reinstated.count == 1 && withdrawal.reinstated[0].hasPrefix("App.S -> B0"))
        let second = state.withdraw(image: 2, reason: "image 2 was unloaded")
        #expect(second.reinstated.count == 1 && second.reinstated[0].hasPrefix("App.S -> F0"))
        #expect(state.shadowedServices.isEmpty)
    }
}
