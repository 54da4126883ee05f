import Testing

@testable import BeeHive

private protocol Clock: AnyObject { var ticks: Int { get } }
private protocol Calendar: AnyObject { var ticks: Int { get } }

private final class SystemClock: Clock, Calendar, ServiceImplementation {
    static var isSingleton: Bool { true }
    let ticks: Int
    init() { ticks = Int.random(in: 0..<Int.max) }
}

/// The cached path of `createService`: a shared instance asked for by a type before comes boxed as that type, without
/// a cast, from the entry the type index gives (or, for a name or a second type, from a table keyed by type). These
/// check that it never returns what the slow path would not.
@Suite("Cached resolution")
struct CachedResolutionTests {
    @Test("a second request returns the same shared instance")
    func sameInstance() throws {
        let hive = Hive()
        try hive.register(service: Clock.self, impl: SystemClock.self)
        let first = try hive.createService(Clock.self)
        #expect(try hive.createService(Clock.self) === first)
        #expect(hive.sharedInstance(ObjectIdentifier(Clock.self), name: nil) != nil, "kept for the cached path")
    }

    @Test("a removed instance is not returned from the cache: the next request makes a new one")
    func removedInstance() throws {
        let hive = Hive()
        try hive.register(service: Clock.self, impl: SystemClock.self)
        let first = try hive.createService(Clock.self)
        hive.removeServiceInstance(Clock.self)
        let second = try hive.createService(Clock.self)
        #expect(second !== first)
        #expect(try hive.createService(Clock.self) === second)
    }

    @Test("each service type gets a box of its own, and names are kept apart")
    func typesAndNames() throws {
        let hive = Hive()
        try hive.register(service: Clock.self, impl: SystemClock.self)
        try hive.register(service: Calendar.self, impl: SystemClock.self)
        try hive.register(service: Clock.self, impl: SystemClock.self, name: "backup")
        let clock = try hive.createService(Clock.self)
        let calendar = try hive.createService(Calendar.self)
        let backup = try hive.createService(Clock.self, name: "backup")
        #expect(try hive.createService(Clock.self) === clock)
        #expect(try hive.createService(Calendar.self) === calendar)
        #expect(try hive.createService(Clock.self, name: "backup") === backup)
        #expect(backup !== clock)
    }

    @Test("shouldCache: false bypasses the cache and gives a new instance")
    func bypass() throws {
        let hive = Hive()
        try hive.register(service: Clock.self, impl: SystemClock.self)
        let shared = try hive.createService(Clock.self)
        #expect(try hive.createService(Clock.self, shouldCache: false) !== shared)
        #expect(try hive.createService(Clock.self) === shared)
    }

    @Test("the table keeps every key through its growth, and drops a box whose instance changed")
    func growth() {
        var table = SharedInstanceTable()
        // Any address serves as a key: objects kept alive stand for 1,000 types.
        let keys = (0..<1000).map { _ in TypedInstance(0) }
        let entry = ServiceEntry(
            ServiceRegistration(service: "T.S", name: nil, implementation: "T.I", source: .code(fileID: "T", line: 1)),
            .typeName("T.I"))
        for (index, key) in keys.enumerated() {
            table.set(
                SharedInstance(entry: entry, generation: entry.generation, box: TypedInstance(index)),
                for: TypeKey(type: ObjectIdentifier(key), name: nil), expected: 16)  // sized for 16: it grows
        }
        let found = keys.map { key in table.box(for: ObjectIdentifier(key), name: nil)?.value(as: Int.self) }
        #expect(found == Array(0..<1000))
        #expect(table.box(for: ObjectIdentifier(Int.self), name: nil) == nil)
        entry.slot = .empty  // the entry's instance changed: its boxes are stale
        #expect(table.box(for: ObjectIdentifier(keys[0]), name: nil) == nil)
    }

    @Test("a box holds a value of any size and alignment, and its end destroys the value")
    func boxLayout() {
        weak var released: SystemClock?
        do {
            let clock = SystemClock()
            released = clock
            let boxes = (
                object: TypedInstance(clock as any Clock),
                aligned: TypedInstance(SIMD4<Float>(1, 2, 3, 4)),
                wide: TypedInstance((1, 2, 3, 4, 5, 6, 7, 8, 9)),
                empty: TypedInstance(())
            )
            #expect(boxes.object.value(as: (any Clock).self) === clock)
            #expect(boxes.aligned.value(as: SIMD4<Float>.self) == SIMD4<Float>(1, 2, 3, 4))
            #expect(boxes.aligned.withValue { Int(bitPattern: $0) } % 16 == 0)
            #expect(boxes.wide.value(as: (Int, Int, Int, Int, Int, Int, Int, Int, Int).self).8 == 9)
            boxes.empty.value(as: Void.self)
            #expect(released != nil)
        }
        #expect(released == nil)
    }
}
