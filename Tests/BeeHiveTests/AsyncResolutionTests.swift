import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BeeHive

@Suite("Asking for services from async code")
struct AsyncResolutionTests {
    @Test("tasks waiting for a singleton another thread is creating suspend: the concurrency pool keeps running")
    func waitingSuspends() async throws {
        let hive = Hive()
        let release = DispatchSemaphore(value: 0)
        let made = Atomic(0)
        try hive.register(Storage.self, scope: .singleton) { _ in
            made.add(1, ordering: .relaxed)
            release.wait()  // the creation is slow: it waits for the test
            return MemoryStorage()
        }
        // The creator is a thread of its own, outside the concurrency pool.
        let creator = Thread { _ = try? hive.createService(Storage.self) }
        creator.start()
        while made.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(1)) }

        // More waiting tasks than the pool has threads (one per core): blocking waits would take every thread.
        let waiters = ProcessInfo.processInfo.activeProcessorCount * 4
        let results = Task {
            try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<waiters {
                    group.addTask { ObjectIdentifier(try await hive.service(Storage.self)) }
                }
                return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
        }
        // A safety net: if the waiters did block the pool, the next step could not run; release after 10 s so
        // that the test fails instead of hanging.
        let rescued = Atomic(false)
        let safetyNet = DispatchWorkItem {
            rescued.store(true, ordering: .relaxed)
            release.signal()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 10, execute: safetyNet)
        try await Task.sleep(for: .milliseconds(50))
        let poolRan = Task { 42 }
        #expect(await poolRan.value == 42)
        let wasRescued = rescued.load(ordering: .relaxed)
        #expect(!wasRescued, "the pool ran a task while the waiters waited")
        #expect(made.load(ordering: .relaxed) == 1, "the singleton is still being created")
        safetyNet.cancel()
        release.signal()

        let identities = try await results.value
        #expect(identities.count == 1, "every waiter got the one shared instance")
        #expect(made.load(ordering: .relaxed) == 1, "the factory ran once")
        #expect(ObjectIdentifier(try await hive.service(Storage.self)) == identities.first)
    }

    @Test("service(_:) gives the same answers as createService(_:): names, transients and errors")
    func sameAnswers() async throws {
        let hive = Hive()
        try hive.register(Storage.self, name: "fresh") { _ in MemoryStorage() }
        let first = try await hive.service(Storage.self, name: "fresh")
        let second = try await hive.service(Storage.self, name: "fresh")
        #expect(ObjectIdentifier(first) != ObjectIdentifier(second), "a transient gives a new instance each time")
        let error = await #expect(throws: HiveError.self) { _ = try await hive.service(Storage.self) }
        #expect(error?.code == .serviceNotFound)
    }
}
