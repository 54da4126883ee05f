import BeeHiveTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BeeHive
@testable import BeeHiveModules
@testable import BeeHiveRouter

/// Plugins of records, built by the test with the C compiler: what a plugin host loads and unloads.
private enum StressPlugins {
    /// Source of plugin `index`: a service of its own, a service all plugins share (a hot upgrade when two are
    /// loaded), a module and a route.
    static func source(_ index: Int) -> String {
        """
        #include <beehive.h>
        BH_SERVICE(Stress.Only\(index), Stress.Impl\(index))
        BH_SERVICE(Stress.Shared, Stress.SharedV\(index))
        BH_MODULE(Stress.Module\(index))
        BH_ROUTE("stress://p\(index)/:id", BeeHiveTests.UserRoute)
        int stress_plugin_\(index)(void) { return \(index); }
        """
    }

    /// Builds the plugins into a new folder; returns their paths.
    static func build(count: Int) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-stress-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let include = Command.repository.appendingPathComponent("CSupport/CBeeHive/include").path
        return try (0..<count).map { index in
            let file = folder.appendingPathComponent("p\(index).c")
            let library = folder.appendingPathComponent("libstress\(index).so").path
            try source(index).write(to: file, atomically: true, encoding: .utf8)
            try Command.run("cc", ["-shared", "-fPIC", "-O1", "-I", include, file.path, "-o", library])
            return library
        }
    }
}

/// Counts failures from many threads and keeps the first messages.
private final class FailureLog: Sendable {
    private let messages = LockedValue<[String]>([])
    let count = Atomic<Int>(0)

    func fail(_ message: String) {
        if count.add(1, ordering: .relaxed).newValue <= 10 { messages.withLock { $0.append(message) } }
    }

    var first: [String] { messages.withLock { $0 } }
}

/// Seconds the stress suite runs: `BEEHIVE_STRESS_SECONDS`; 0 (skipped) when unset.
private let stressSeconds = ProcessInfo.processInfo.environment["BEEHIVE_STRESS_SECONDS"].flatMap(Double.init) ?? 0

/// Runs only in a process of its own (`Scripts/test.sh` runs it for 30 s under ThreadSanitizer), because the
/// plugins it loads into the shared hive would show up in what other suites count.
@Suite(
    "Stress: plugins that come and go while every other thread works",
    .enabled(if: stressSeconds > 0, "set BEEHIVE_STRESS_SECONDS and run this suite alone"))
struct StressTests {

    @Test("dlopen/dlclose churn, rescans, resolves, routes and events: no registration is lost, none is left behind")
    func churn() throws {
        let plugins = try StressPlugins.build(count: 3)
        let hive = Hive.shared
        let deadline = DispatchTime.now() + stressSeconds
        let failures = FailureLog()
        let cycles = Atomic<Int>(0)
        let group = DispatchGroup()
        func worker(_ name: String, _ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread {
                while DispatchTime.now() < deadline { body() }
                group.leave()
            }.start()
        }

        // The plugin host: one or two plugins at a time, checked after each rescan.
        worker("churn") {
            let cycle = cycles.add(1, ordering: .relaxed).newValue
            let first = cycle % plugins.count
            let second = (cycle + 1) % plugins.count
            guard let a = dlopen(plugins[first], RTLD_NOW | RTLD_LOCAL) else {
                return failures.fail("dlopen: \(String(cString: dlerror()))")
            }
            let upgrade = cycle % 4 == 0
            let b = upgrade ? dlopen(plugins[second], RTLD_NOW | RTLD_LOCAL) : nil
            hive.rescan()
            if hive.registration(for: "Stress.Only\(first)")?.source.imagePath != plugins[first] {
                failures.fail("cycle \(cycle): Stress.Only\(first) missing after dlopen + rescan")
            }
            if !Router.forScheme("stress").canOpen("stress://p\(first)/7") {
                failures.fail("cycle \(cycle): the route of plugin \(first) does not open")
            }
            dlclose(a)
            hive.rescan()
            if hive.registration(for: "Stress.Only\(first)") != nil {
                failures.fail("cycle \(cycle): Stress.Only\(first) still registered after dlclose + rescan")
            }
            if upgrade {
                // Hot upgrade: the shared service now comes from the plugin still loaded.
                let shared = hive.registration(for: "Stress.Shared")
                if shared?.implementation != "Stress.SharedV\(second)" {
                    failures.fail(
                        "cycle \(cycle): Stress.Shared is \(shared?.implementation ?? "missing"), expected V\(second)")
                }
                if let b { dlclose(b) }
                hive.rescan()
            }
            if hive.registration(for: "Stress.Shared") != nil {
                failures.fail("cycle \(cycle): Stress.Shared still registered with every plugin closed")
            }
        }
        // Services of the main image are never lost.
        for _ in 0..<2 {
            worker("resolve") {
                guard (try? hive.createService(GreetingService.self))?.greet() == "hello" else {
                    return failures.fail("GreetingService did not resolve during the churn")
                }
            }
        }
        worker("rescan") {
            hive.rescan()
            _ = hive.diagnostics.count
        }
        worker("router") {
            if !Router.forScheme("annotated").canOpen("annotated://user/7") {
                failures.fail("the main image's route stopped opening during the churn")
            }
            _ = Router.forScheme("stress").canOpen("stress://p1/3")
        }
        // Declared by name (registering in code is async): this test's threads wait, the pool's must not.
        let moduleHive = Hive()
        try moduleHive.declareModule("BeeHiveTests.ModuleB")
        let manager = ModuleManager(hive: moduleHive)
        let events = Atomic<Int>(0)
        try manager.subscribe(module: "BeeHiveTests.ModuleB", to: .custom(1_001)) { _ in
            events.add(1, ordering: .relaxed)
        }
        worker("events") {
            // The worker is a thread of its own (not the concurrency pool): it may wait for the async trigger.
            let delivered = DispatchSemaphore(value: 0)
            Task {
                try? await manager.triggerCustomEvent(1_001)
                delivered.signal()
            }
            delivered.wait()
        }

        // A hang guard: a worker ends its last short step long before this, however loaded the machine.
        let finished = group.wait(timeout: deadline + 600) == .success
        #expect(finished, "a worker did not finish within 10 minutes of the end of the run: a hang")
        #expect(failures.count.load(ordering: .relaxed) == 0, "\(failures.first)")
        #expect(cycles.load(ordering: .relaxed) > 0)
        #expect(events.load(ordering: .relaxed) > 0)
        // Nothing of the plugins is left behind, and what the main image declares is all there.
        hive.rescan()
        #expect(!hive.serviceRegistrations.contains { $0.service.hasPrefix("Stress.") })
        #expect(!hive.moduleDeclarations.contains { $0.name.hasPrefix("Stress.") })
        #expect(!Router.forScheme("stress").canOpen("stress://p0/1"))
        #expect(hive.registration(for: "BeeHiveTests.GreetingService") != nil)
        #expect(hive.registration(for: "BeeHiveTests.CounterService") != nil)
        print("stress: \(cycles.load(ordering: .relaxed)) plugin cycles, \(events.load(ordering: .relaxed)) events")
    }
}
