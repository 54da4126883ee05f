import BeeHiveTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BeeHive

/// The service of the plugins these tests load: C plugins compiled here, whose records name these types.
protocol EventService: AnyObject, Sendable {
    var version: Int { get }
}

final class EventServiceV1: EventService, ServiceImplementation {
    static var isSingleton: Bool { true }
    let version = 1
    init() {}
}

final class EventServiceV2: EventService, ServiceImplementation {
    static var isSingleton: Bool { true }
    let version = 2
    init() {}
}

/// A service registered in code, never by a plugin.
protocol LocalEventService: Sendable {}
struct LocalEventServiceImpl: LocalEventService, ServiceImplementation { init() {} }

/// Events, trackers and leases with real plugins (C plugins compiled here, loaded into a hive of the test's own; run
/// under ThreadSanitizer by Scripts/test.sh).
@Suite("Service events, trackers and leases around plugins (in process)", .serialized)
struct ServiceEventsAndLeasesTests {
    /// A folder with the two plugin versions, and a hive that scans loaded images.
    final class Lab: Sendable {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-events-\(UUID())")
        let v1: String
        let v2: String
        let hive = Hive(options: Hive.Options(scansLoadedImages: true))

        init() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            v1 = try PluginUpgradeConcurrencyTests.plugin("EventServiceV1", of: "EventService", in: folder)
            v2 = try PluginUpgradeConcurrencyTests.plugin("EventServiceV2", of: "EventService", in: folder)
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    /// What an observer saw, in order.
    final class Recorder: Sendable {
        let events = LockedValue<[String]>([])
        func record(_ line: String) { events.withLock { $0.append(line) } }
        var lines: [String] { events.withLock { $0 } }

        /// Waits until `count` events arrived (they come on the hive's event queue), at most 10 s.
        func wait(for count: Int) -> [String] {
            let deadline = ContinuousClock.now + .seconds(10)
            while lines.count < count && ContinuousClock.now < deadline { usleep(1_000) }
            return lines
        }
    }

    /// `kind implementation[name] @version-file`, e.g. `added EventServiceV1[hot] @v1`.
    static func line(_ event: ServiceEvent) -> String {
        let name = event.registration.name.map { "[\($0)]" } ?? ""
        let implementation = event.registration.implementation.split(separator: ".").last ?? ""
        let plugin = event.plugin.map { $0.hasSuffix("EventServiceV1.so") ? " @v1" : " @v2" } ?? ""
        return "\(event.kind) \(implementation)\(name)\(plugin)"
    }

    @Test("observers get added, then removing while still served, then removed, in order, naming the plugin")
    func eventsAroundAnUpgradeAndARetire() throws {
        try imageLoading.withLock { _ in
            let lab = try Lab()
            let hive = lab.hive
            let recorder = Recorder()
            let observation = hive.observe(EventService.self) { event in
                recorder.record(Self.line(event))
                if event.kind == .removing, event.registration.name == nil {
                    // Still served while the handlers of `removing` run.
                    let version = (try? hive.createService(EventService.self).version) ?? 0
                    recorder.record("served v\(version)")
                }
            }
            let v1 = try hive.plugins.load(path: lab.v1)
            #expect(recorder.wait(for: 2) == ["added EventServiceV1 @v1", "added EventServiceV1[hot] @v1"])

            let v2 = try hive.plugins.upgrade(v1, to: lab.v2)
            let upgrade = Array(recorder.wait(for: 9).dropFirst(2))
            #expect(
                upgrade == [
                    "removing EventServiceV1 @v1", "served v1", "removing EventServiceV1[hot] @v1",
                    "removed EventServiceV1 @v1", "removed EventServiceV1[hot] @v1", "added EventServiceV2 @v2",
                    "added EventServiceV2[hot] @v2",
                ])

            try v2.retire()
            let retire = Array(recorder.wait(for: 14).dropFirst(9))
            #expect(
                retire == [
                    "removing EventServiceV2 @v2", "served v2", "removing EventServiceV2[hot] @v2",
                    "removed EventServiceV2 @v2", "removed EventServiceV2[hot] @v2",
                ])
            observation.cancel()
            try hive.plugins.load(path: lab.v1).retire()
            usleep(50_000)
            #expect(recorder.lines.count == 14, "no event after cancel: \(recorder.lines)")
        }
    }

    @Test("a new observer first gets added for what serves now; registrations in code are observed too")
    func replayAndCode() throws {
        let hive = Hive()
        try hive.register(service: LocalEventService.self, impl: LocalEventServiceImpl.self)
        let recorder = Recorder()
        let observation = hive.observe(LocalEventService.self) { recorder.record(Self.line($0)) }
        try hive.register(service: LocalEventService.self, impl: LocalEventServiceImpl.self, name: "second")
        #expect(recorder.wait(for: 2) == ["added LocalEventServiceImpl", "added LocalEventServiceImpl[second]"])
        observation.cancel()
    }

    @Test("events(for:) delivers the same events as an asynchronous sequence")
    func asyncSequence() async throws {
        let hive = Hive()
        let stream = hive.events(for: LocalEventService.self)
        try hive.register(service: LocalEventService.self, impl: LocalEventServiceImpl.self)
        try hive.register(service: LocalEventService.self, impl: LocalEventServiceImpl.self, name: "b")
        var seen: [String] = []
        for await event in stream {
            seen.append(Self.line(event))
            if seen.count == 2 { break }
        }
        #expect(seen == ["added LocalEventServiceImpl", "added LocalEventServiceImpl[b]"])
    }

    @Test("a tracker keeps the registrations that serve a service now, across load, upgrade and retire")
    func tracker() throws {
        try imageLoading.withLock { _ in
            let lab = try Lab()
            let tracker = ServiceTracker(EventService.self, in: lab.hive)
            #expect(tracker.registrations.isEmpty)
            let implementations = { tracker.registrations.map(\.implementation).sorted() }
            let until = { (expected: [String]) in
                let deadline = ContinuousClock.now + .seconds(10)
                while implementations() != expected && ContinuousClock.now < deadline { usleep(1_000) }
                return implementations()
            }
            let v1 = try lab.hive.plugins.load(path: lab.v1)
            let one = "BeeHiveTests.EventServiceV1"
            let two = "BeeHiveTests.EventServiceV2"
            #expect(until([one, one]) == [one, one])
            let v2 = try lab.hive.plugins.upgrade(v1, to: lab.v2)
            #expect(until([two, two]) == [two, two])
            try v2.retire()
            #expect(until([]) == [])
        }
    }

    @Test("a removing handler that does not return in time is reported by its site, and the retire goes on")
    func slowObserver() throws {
        try imageLoading.withLock { _ in
            let lab = try Lab()
            let release = DispatchSemaphore(value: 0)
            let observation = lab.hive.observe(EventService.self) { event in
                if event.kind == .removing && event.registration.name == nil { release.wait() }
            }
            let plugin = try lab.hive.plugins.load(path: lab.v1)
            try lab.hive.plugins.retire(plugin, drainTimeout: .milliseconds(200))
            #expect(plugin.state == .retired)
            #expect(throws: HiveError.self) { try lab.hive.createService(EventService.self) }
            let slow = lab.hive.diagnostics.filter { $0.code == .slowObserver }
            #expect(slow.count == 1)
            #expect(slow.first?.message.contains("ServiceEventsAndLeasesTests.swift:") == true, "\(slow)")
            release.signal()
            observation.cancel()
        }
    }

    @Test("a resolve after a retire says when the service was withdrawn, and by which plugin")
    func notFoundAfterARetire() throws {
        try imageLoading.withLock { _ in
            let lab = try Lab()
            let plugin = try lab.hive.plugins.load(path: lab.v1)
            try plugin.retire()
            let error = #expect(throws: HiveError.self) { try lab.hive.createService(EventService.self) }
            let message = error?.message ?? ""
            #expect(error?.code == .serviceNotFound)
            #expect(message.contains("It was withdrawn at 20"), "\(message)")
            #expect(message.contains("the plugin \(lab.v1) was retired"), "\(message)")
            #expect(message.contains("BeeHiveTests.EventServiceV1"), "\(message)")
            try lab.hive.plugins.load(path: lab.v2).retire()
            let again = #expect(throws: HiveError.self) { try lab.hive.createService(EventService.self) }
            #expect(again?.message.contains("the plugin \(lab.v2) was retired") == true, "the latest withdrawal")
        }
    }

    /// Takes a lease on EventService on another thread and holds it until `leave` is signalled; returns once the
    /// lease is open. `version` is what the lease's body saw, once `group` is done.
    static func holdLease(
        in lab: Lab
    ) -> (leave: DispatchSemaphore, group: DispatchGroup, version: LockedValue<Int?>) {
        let inside = DispatchSemaphore(value: 0)
        let leave = DispatchSemaphore(value: 0)
        let version = LockedValue<Int?>(nil)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let seen = try? lab.hive.withService(EventService.self) { service in
                inside.signal()
                leave.wait()
                return service.version
            }
            version.withLock { $0 = seen }
        }
        inside.wait()
        return (leave, group, version)
    }

    @Test("a retire waits until the leases on the plugin's services end; afterwards nothing of it is served")
    func retireWaitsForLeases() throws {
        try imageLoading.withLock { _ in
            let lab = try Lab()
            let plugin = try lab.hive.plugins.load(path: lab.v1)
            let (leave, group, leased) = Self.holdLease(in: lab)
            let retired = Atomic<Bool>(false)
            DispatchQueue.global().async(group: group) {
                try? lab.hive.plugins.retire(plugin, drainTimeout: .seconds(30))
                retired.store(true, ordering: .sequentiallyConsistent)
            }
            usleep(200_000)
            let early = retired.load(ordering: .sequentiallyConsistent)
            #expect(!early, "the retire waits for the lease")
            #expect(plugin.state == .active)
            leave.signal()
            group.wait()
            let late = retired.load(ordering: .sequentiallyConsistent)
            #expect(late)
            #expect(leased.withLock { $0 } == 1)
            #expect(throws: HiveError.self) { try lab.hive.createService(EventService.self) }
            #expect(throws: HiveError.self) { try lab.hive.withService(EventService.self) { $0.version } }
        }
    }

    @Test("a lease open past the drain timeout fails the retire with pluginBusy, naming it; the plugin stays")
    func busyPlugin() throws {
        try imageLoading.withLock { _ in
            let lab = try Lab()
            let plugin = try lab.hive.plugins.load(path: lab.v1)
            let (leave, group, _) = Self.holdLease(in: lab)
            let error = #expect(throws: PluginError.self) {
                try lab.hive.plugins.retire(plugin, drainTimeout: .milliseconds(200))
            }
            #expect(error?.code == .pluginBusy)
            #expect(
                error?.message.contains("ServiceEventsAndLeasesTests.swift:") == true, "\(String(describing: error))")
            #expect(plugin.state == .active)
            #expect(try lab.hive.createService(EventService.self).version == 1, "still served")
            leave.signal()
            group.wait()
            try plugin.retire()
            #expect(plugin.state == .retired)
        }
    }

    @Test("leases taken while a plugin is upgraded get v1 or v2, never not found, and never v1 once it returned")
    func leasesAcrossUpgrades() throws {
        try imageLoading.withLock { _ in
            let lab = try Lab()
            var plugin = try lab.hive.plugins.load(path: lab.v1)
            let stop = Atomic<Bool>(false)
            let upgradesDone = Atomic<Int>(0)
            let failures = LockedValue<[String]>([])
            let calls = Atomic<Int>(0)
            let readers = DispatchGroup()
            for _ in 0..<3 {
                DispatchQueue.global().async(group: readers) {
                    while !stop.load(ordering: .sequentiallyConsistent) {
                        let before = upgradesDone.load(ordering: .sequentiallyConsistent)
                        do {
                            let version = try lab.hive.withService(EventService.self) { $0.version }
                            // Upgrade n (from 1) goes to v2 when odd: once it returned, and before the next one
                            // began, only its version.
                            let after = upgradesDone.load(ordering: .sequentiallyConsistent)
                            if before > 0 && before == after && version != (before % 2 == 1 ? 2 : 1) {
                                failures.withLock { $0.append("v\(version) after upgrade \(before)") }
                            }
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                        calls.add(1, ordering: .relaxed)
                    }
                }
            }
            for number in 1...10 {
                upgradesDone.store(-number, ordering: .sequentiallyConsistent)  // under way
                plugin = try lab.hive.plugins.upgrade(plugin, to: number % 2 == 1 ? lab.v2 : lab.v1)
                upgradesDone.store(number, ordering: .sequentiallyConsistent)
                let seen = calls.load(ordering: .relaxed)
                while calls.load(ordering: .relaxed) < seen + 6 { sched_yield() }
            }
            stop.store(true, ordering: .sequentiallyConsistent)
            readers.wait()
            let failed = failures.withLock { $0 }
            #expect(failed.isEmpty, "\(failed.count) failures, the first: \(failed.prefix(3))")
            #expect(calls.load(ordering: .relaxed) > 0)
            try plugin.retire()
        }
    }
}
