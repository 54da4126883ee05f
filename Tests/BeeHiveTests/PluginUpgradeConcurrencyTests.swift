import BeeHiveTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BeeHive

/// The service the C plugins of these tests register (their records name these types of the test binary).
protocol HotService: AnyObject, Sendable {
    var version: Int { get }
}

final class HotServiceV1: HotService, ServiceImplementation {
    static var isSingleton: Bool { true }
    static let released = Atomic<Int>(0)
    let version = 1
    init() {}
    deinit { Self.released.add(1, ordering: .relaxed) }
}

final class HotServiceV2: HotService, ServiceImplementation {
    static var isSingleton: Bool { true }
    let version = 2
    init() {}
}

/// The service of the test of an upgrade during a singleton's creation: version 1's `init()` waits at a gate.
protocol GatedService: AnyObject, Sendable {
    var version: Int { get }
}

/// Holds version 1's initializer until the test opens it.
enum Gate {
    static let entered = DispatchSemaphore(value: 0)
    static let open = DispatchSemaphore(value: 0)
}

final class GatedServiceV1: GatedService, ServiceImplementation {
    static var isSingleton: Bool { true }
    let version = 1
    init() {
        Gate.entered.signal()
        Gate.open.wait()
    }
}

final class GatedServiceV2: GatedService, ServiceImplementation {
    static var isSingleton: Bool { true }
    let version = 2
    init() {}
}

/// Plugins upgraded in this process while other threads resolve (run under ThreadSanitizer by Scripts/test.sh): C
/// plugins compiled here with cc, whose records name the types above, loaded into a hive of the test's own.
@Suite("Plugins upgraded under concurrent resolves (in process)", .serialized)
struct PluginUpgradeConcurrencyTests {
    /// Compiles a plugin whose records register `implementation` for HotService, plain and named "hot".
    static func plugin(_ implementation: String, of service: String = "HotService", in folder: URL) throws -> String {
        let source = folder.appendingPathComponent("\(implementation).c")
        let output = folder.appendingPathComponent("\(implementation).so").path
        try """
        #include <beehive.h>
        BH_SERVICE(BeeHiveTests.\(service), BeeHiveTests.\(implementation))
        BH_NAMED_SERVICE(BeeHiveTests.\(service), BeeHiveTests.\(implementation), hot)
        """.write(to: source, atomically: true, encoding: .utf8)
        let include = Command.repository.appendingPathComponent("CSupport/CBeeHive/include").path
        try Command.run("cc", ["-shared", "-fPIC", "-I", include, source.path, "-o", output])
        return output
    }

    @Test("20 upgrades while 4 threads resolve: every resolve gets v1 or v2, never not found; retire withdraws all")
    func upgradesWhileResolving() throws {
        // Its plugins must not show up in what other suites count while it runs.
        try imageLoading.withLock { _ in try checkUpgradesWhileResolving() }
    }

    private func checkUpgradesWhileResolving() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-upgrade-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let v1 = try Self.plugin("HotServiceV1", in: folder)
        let v2 = try Self.plugin("HotServiceV2", in: folder)
        let hive = Hive(options: Hive.Options(scansLoadedImages: true))

        var plugin = try hive.plugins.load(path: v1)
        #expect(plugin.registered.services == 2)
        #expect(plugin.hasSwiftCode == false)
        #expect(try hive.createService(HotService.self).version == 1)

        let stop = Atomic<Bool>(false)
        let failures = Atomic<Int>(0)
        let calls = Atomic<Int>(0)
        // A pthread mutex, which ThreadSanitizer sees (`Mutex`'s futex it does not, and it reports the accesses inside).
        let seen = LockedValue<Set<Int>>([])
        let readers = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: readers) {
                var versions: Set<Int> = []
                while !stop.load(ordering: .relaxed) {
                    for name in [nil, "hot"] {
                        calls.add(1, ordering: .relaxed)
                        if let service = try? hive.createService(HotService.self, name: name) {
                            versions.insert(service.version)
                        } else {
                            failures.add(1, ordering: .relaxed)
                        }
                    }
                }
                seen.withLock { $0.formUnion(versions) }
            }
        }
        for number in 0..<20 {
            plugin = try hive.plugins.upgrade(plugin, to: number % 2 == 0 ? v2 : v1)
            // Waits on events, not time: the readers resolve against this version before the next upgrade (8 more
            // calls started means some reader finished one begun after the upgrade), however loaded the machine is.
            let upgraded = calls.load(ordering: .relaxed)
            while calls.load(ordering: .relaxed) < upgraded + 8 { sched_yield() }
        }
        stop.store(true, ordering: .relaxed)
        readers.wait()

        #expect(failures.load(ordering: .relaxed) == 0, "of \(calls.load(ordering: .relaxed)) resolves")
        #expect(seen.withLock { $0 } == [1, 2])
        #expect(try hive.createService(HotService.self).version == 1, "the 20th upgrade went back to v1")
        #expect(HotServiceV1.released.load(ordering: .relaxed) >= 1, "retired v1 singletons were released")
        #expect(hive.plugins.active == [plugin])

        try plugin.retire()
        #expect(throws: HiveError.self) { try hive.createService(HotService.self) }
        #expect(hive.plugins.active.isEmpty)
        #expect(throws: PluginError.self) { try plugin.retire() }
    }

    @Test("a singleton whose creation began before an upgrade is not served after it: the next resolve gets v2")
    func creationAcrossAnUpgrade() throws {
        try imageLoading.withLock { _ in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-gated-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let v1 = try Self.plugin("GatedServiceV1", of: "GatedService", in: folder)
            let v2 = try Self.plugin("GatedServiceV2", of: "GatedService", in: folder)
            let hive = Hive(options: Hive.Options(scansLoadedImages: true))
            let plugin = try hive.plugins.load(path: v1)

            // A thread starts creating v1's singleton and is held inside its initializer.
            let first = LockedValue<Int?>(nil)
            let resolved = DispatchGroup()
            DispatchQueue.global().async(group: resolved) {
                first.withLock { $0 = try? hive.createService(GatedService.self).version }
            }
            Gate.entered.wait()
            // The plugin is upgraded meanwhile; then the creation finishes, for the registration now withdrawn.
            let upgraded = try hive.plugins.upgrade(plugin, to: v2)
            Gate.open.signal()
            resolved.wait()

            #expect(first.withLock { $0 } == 1, "the call begun before the upgrade gets the version it began with")
            #expect(
                try hive.createService(GatedService.self).version == 2, "not v1's instance, cached after the upgrade")
            #expect(try hive.createService(GatedService.self).version == 2, "cached: still v2")
            try upgraded.retire()
        }
    }
}
