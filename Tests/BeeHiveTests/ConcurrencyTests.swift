import Dispatch
import Synchronization
import Testing

@testable import BeeHive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

protocol Slow: AnyObject {}
final class SlowSingleton: Slow, ServiceImplementation {
    static var isSingleton: Bool { true }
    static let created = Atomic<Int>(0)
    init() {
        Self.created.add(1, ordering: .relaxed)
        // Long enough that other threads arrive while this one is creating.
        var x = 0
        for i in 0..<200_000 { x &+= i }
        precondition(x != 1)
    }
}

@Suite("Thread safety")
struct ConcurrencyTests {
    @Test("many threads resolving while others register: no race, every lookup sees a whole registry")
    func resolveWhileRegistering() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: SingletonStorage.self)
        let failures = Atomic<Int>(0)
        let shrunk = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { worker in
            var seen = 0
            for i in 0..<200 {
                if worker % 4 == 0 {
                    _ = try? hive.register(service: Storage.self, impl: MemoryStorage.self, name: "w\(worker)-\(i)")
                    _ = try? hive.register(
                        service: "BeeHiveTests.Storage", impl: "BeeHiveTests.MemoryStorage", name: "n\(worker)-\(i)")
                } else {
                    guard (try? hive.createService(Storage.self))?.label == "singleton" else {
                        failures.add(1, ordering: .relaxed)
                        continue
                    }
                    _ = try? hive.createService(Storage.self, name: "w0-\(i / 2)")
                    // A snapshot copies every registration: one in eight iterations keeps it racing the registrations
                    // at an eighth of the cost (a snapshot each time took ~9 s, ~32 s under tsan).
                    guard i % 8 == 0 else { continue }
                    let count = hive.serviceRegistrations.count
                    if count < seen { shrunk.add(1, ordering: .relaxed) }
                    seen = count
                    _ = hive.diagnostics
                }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(shrunk.load(ordering: .relaxed) == 0, "a later snapshot held fewer registrations than an earlier one")
        #expect(hive.serviceRegistrations.count == 1 + 4 * 200 * 2)
    }

    @Test("a singleton is created once even when many threads ask at the same time")
    func singletonOnce() throws {
        let hive = Hive()
        try hive.register(service: Slow.self, impl: SlowSingleton.self)
        let before = SlowSingleton.created.load(ordering: .relaxed)
        let identities = LockedValue<Set<ObjectIdentifier>>([])
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            if let instance = try? hive.createService(Slow.self) {
                identities.withLock { _ = $0.insert(ObjectIdentifier(instance)) }
            }
        }
        #expect(SlowSingleton.created.load(ordering: .relaxed) == before + 1)
        #expect(identities.withLock { $0.count } == 1)
    }

    @Test("a thread waiting for a singleton whose creation fails is woken, and its own attempt creates it")
    func waiterOfAFailedCreation() throws {
        struct Refused: Error {}
        let hive = Hive()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let attempts = Atomic(0)
        try hive.register(service: Storage.self, scope: .singleton) { _ in
            guard attempts.add(1, ordering: .relaxed).newValue == 1 else { return MemoryStorage() }
            entered.signal()
            release.wait()  // the first creation waits for the test, then fails
            throw Refused()
        }
        let done = DispatchGroup()
        let creatorFailed = Atomic(false)
        DispatchQueue.global().async(group: done) {
            creatorFailed.store((try? hive.createService(Storage.self)) == nil, ordering: .relaxed)
        }
        entered.wait()
        // The first creation is running (the hive's lock is free meanwhile): a second thread asks, finds the
        // singleton being made, and makes the ticket it then waits on. The test sees the ticket in the slot.
        let waited = LockedValue<Storage?>(nil)
        DispatchQueue.global().async(group: done) {
            let instance = try? hive.createService(Storage.self)
            waited.withLock { $0 = instance }
        }
        let key = RegistrationKey(service: TypeLookup.name(of: Storage.self), name: nil)
        while hive.state.withLock({ $0.entry(for: key)?.slot.ticket == nil }) { usleep(1000) }
        release.signal()
        done.wait()
        let failed = creatorFailed.load(ordering: .relaxed)
        #expect(failed, "the first creation failed")
        #expect(waited.withLock { $0?.label } == "memory", "the waiter was woken and made the instance itself")
        let made = attempts.load(ordering: .relaxed)
        #expect(made == 2)
        let again = try hive.createService(Storage.self)
        #expect(waited.withLock { $0.map { ObjectIdentifier($0) } } == ObjectIdentifier(again), "and it is shared")
    }

    @Test("a factory that resolves other services from many threads does not deadlock")
    func nestedFromManyThreads() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: MemoryStorage.self, name: "inner")
        try hive.register(service: Storage.self, scope: .singleton) { hive in
            try hive.createService(Storage.self, name: "inner")
        }
        try hive.register(service: Storage.self, name: "outer", scope: .transient) { hive in
            try hive.createService(Storage.self)
        }
        let ok = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            if (try? hive.createService(Storage.self, name: "outer"))?.label == "memory" {
                ok.add(1, ordering: .relaxed)
            }
        }
        #expect(ok.load(ordering: .relaxed) == 64)
    }

    @Test("the shared hive's rescan and lookups from many threads at once")
    func sharedRescan() {
        let ok = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            if i % 2 == 0 { Hive.shared.rescan() }
            if (try? Hive.shared.createService(GreetingService.self))?.greet() == "hello" {
                ok.add(1, ordering: .relaxed)
            }
        }
        #expect(ok.load(ordering: .relaxed) == 16)
    }

    @Test("a LockedValue loses no update of threads that contend for it, and each holder sees the last one's writes")
    func lockedValueUnderContention() {
        // A plain counter and a plain array, no atomics: only the lock orders the threads (under ThreadSanitizer, a
        // lock it could not see would make it report these writes as races). Every 100th holder sleeps with the lock
        // held, so that the others spin and then wait in the kernel, the lock's contended path.
        let state = LockedValue((count: 0, holders: [Int]()))
        let workers = 8
        let rounds = 2_000
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for round in 0..<rounds {
                state.withLock { state in
                    state.count += 1
                    state.holders.append(worker)
                    if round % 100 == 0 { usleep(200) }
                }
            }
        }
        let (count, holders) = state.withLock { ($0.count, $0.holders) }
        #expect(count == workers * rounds)
        #expect(holders.count == workers * rounds)
        let perWorker = Dictionary(grouping: holders, by: { $0 }).mapValues(\.count)
        #expect(perWorker == Dictionary(uniqueKeysWithValues: (0..<workers).map { ($0, rounds) }))
    }
}
