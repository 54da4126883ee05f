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

        // More waiting tasks than the pool has threads (one per core). Each counts itself in, then waits. A waiter
        // that blocked its thread would hold it: once the pool's few threads were held, the remaining waiters could
        // never start, and `entered` would never reach `waiters`. So every waiter entering is the proof; no
        // duration is involved.
        let waiters = ProcessInfo.processInfo.activeProcessorCount * 4
        let entered = EnteredCount()
        let results = Task {
            try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<waiters {
                    group.addTask {
                        entered.value.add(1, ordering: .relaxed)
                        return ObjectIdentifier(try await hive.service(Storage.self))
                    }
                }
                return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
        }
        // A hang guard, not a deadline: if the waiters did block the pool, this test could never go on; after
        // 10 minutes a thread outside the pool releases the creation, so that the test fails instead of hanging.
        // No healthy run, however loaded the machine, comes near it.
        let rescued = Atomic(false)
        let hangGuard = DispatchWorkItem {
            rescued.store(true, ordering: .relaxed)
            release.signal()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(600), execute: hangGuard)
        while entered.value.load(ordering: .relaxed) < waiters { try await Task.sleep(for: .milliseconds(1)) }
        let poolRan = Task { 42 }
        #expect(await poolRan.value == 42)
        let wasRescued = rescued.load(ordering: .relaxed)
        #expect(!wasRescued, "every waiter started, and the pool ran a task, while the singleton was being created")
        #expect(made.load(ordering: .relaxed) == 1, "the singleton is still being created")
        hangGuard.cancel()
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

/// How many waiting tasks have started, shared with the tasks (an atomic is not copied into a closure).
private final class EnteredCount: Sendable {
    let value = Atomic(0)
}
