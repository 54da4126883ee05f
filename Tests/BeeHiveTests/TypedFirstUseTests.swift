import Synchronization
import Testing

@testable import BeeHive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

protocol Kettle: AnyObject, Sendable { var serial: Int { get } }

enum KettleKey: ServiceKey {
    typealias Service = any Kettle
    static var serviceName: String { "BeeHiveTests.Kettle" }
}

let kettlesMade = Atomic<Int>(0)

/// What `@BeeHiveService(Kettle.self)` writes for `Impl` when `Kettle` has a key, its JSON `json` written in `file`:
/// the body of the accessor of its record.
func writeKettleRecord<Impl: Kettle & ServiceImplementation>(
    _: Impl.Type, json: StaticString, file: String, to out: UnsafeMutableRawPointer, type: UnsafeRawPointer,
    hint: UnsafeRawPointer?
) -> Bool {
    _BeeHiveTypedRecord.write(
        json: json,
        .service(
            KettleKey.self, implementation: Impl.self, named: "BeeHiveTests.\(Impl.self)",
            serviceNamed: "BeeHiveTests.Kettle", file: file, line: 1, upcast: { $0 }), to: out, type: type, hint: hint)
}

/// A singleton slow to make: threads that ask meanwhile wait for it.
final class SlowKettle: Kettle, ServiceImplementation {
    static var isSingleton: Bool { true }
    let serial = kettlesMade.add(1, ordering: .relaxed).newValue

    init() { usleep(50_000) }
}

let slowKettleAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    writeKettleRecord(
        SlowKettle.self,
        json: #"{"service":"BeeHiveTests.Kettle","impl":"BeeHiveTests.SlowKettle","file":"K/S.swift","line":1}"#,
        file: "K/S.swift", to: out, type: type, hint: hint)
}

/// Not a singleton: every request makes one.
final class TransientKettle: Kettle, ServiceImplementation {
    let serial = kettlesMade.add(1, ordering: .relaxed).newValue
}

let transientKettleAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    writeKettleRecord(
        TransientKettle.self,
        json: #"{"service":"BeeHiveTests.Kettle","impl":"BeeHiveTests.TransientKettle","file":"K/T.swift","line":1}"#,
        file: "K/T.swift", to: out, type: type, hint: hint)
}

/// What the hive answered when `SelfAskingKettle`'s initializer asked for its own service.
let selfAskingKettleAnswer = Mutex<String?>(nil)

/// A singleton whose initializer asks for its own service: a cycle.
final class SelfAskingKettle: Kettle, ServiceImplementation {
    static var isSingleton: Bool { true }
    static let hive = Mutex<Hive?>(nil)
    let serial = 0

    init() {
        guard let hive = Self.hive.withLock({ $0 }) else { return }
        do {
            _ = try hive.createService(KettleKey.self)
            selfAskingKettleAnswer.withLock { $0 = "an instance" }
        } catch {
            selfAskingKettleAnswer.withLock { $0 = "\(error.code)" }
        }
    }
}

let selfAskingKettleAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    writeKettleRecord(
        SelfAskingKettle.self,
        json: #"{"service":"BeeHiveTests.Kettle","impl":"BeeHiveTests.SelfAskingKettle","file":"K/A.swift","line":1}"#,
        file: "K/A.swift", to: out, type: type, hint: hint)
}

/// A singleton whose initializer registers, in code, a registration of its service that outranks its own record.
final class OutrankedKettle: Kettle, ServiceImplementation {
    static var isSingleton: Bool { true }
    static let hive = Mutex<Hive?>(nil)
    let serial = kettlesMade.add(1, ordering: .relaxed).newValue

    init() {
        guard let hive = Self.hive.withLock({ $0 }) else { return }
        _ = try? hive.register(KettleKey.self, scope: .singleton, rank: 1) { _ in TransientKettle() }
    }
}

let outrankedKettleAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    writeKettleRecord(
        OutrankedKettle.self,
        json: #"{"service":"BeeHiveTests.Kettle","impl":"BeeHiveTests.OutrankedKettle","file":"K/O.swift","line":1}"#,
        file: "K/O.swift", to: out, type: type, hint: hint)
}

/// The first use of a service whose typed record makes it boxed as what is asked for (a key, or the annotated
/// type): the short path, which must give what the general one gives.
@Suite("A typed record's first use")
struct TypedFirstUseTests {
    /// A hive holding the typed record of `accessor`, registered as the scanner registers it.
    static func hive(with accessor: _BeeHiveTypedRecord.Accessor, image: UInt64) throws -> Hive {
        let hive = Hive()
        let (parsed, problems) = SwiftRecordSection.parse(accessor, imageID: image, in: hive)
        #expect(problems.isEmpty)
        try #require(parsed.services.count == 1)
        #expect(hive.add(services: parsed.services).isEmpty)
        return hive
    }

    @Test("threads asking at once for a singleton being made wait for it: one instance, then the cached path")
    func concurrentFirstUse() async throws {
        let hive = try Self.hive(with: slowKettleAccessor, image: 9_970)
        defer { TypedRecords.remove(image: 9_970) }
        let serials = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                group.addTask { (try? hive.createService(KettleKey.self).serial) ?? -1 }
            }
            group.addTask { (try? await hive.service(KettleKey.self).serial) ?? -1 }
            return await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(serials.count == 1 && !serials.contains(-1), "one instance for every thread: \(serials)")
        #expect(hive.sharedInstance(ObjectIdentifier(KettleKey.self), name: nil) != nil, "kept for the cached path")
        #expect(try hive.createService(KettleKey.self).serial == serials.first)
        #expect(hive.existingService(KettleKey.self)?.serial == serials.first)
    }

    @Test("a transient implementation gives a new instance per request and keeps none")
    func transient() throws {
        let hive = try Self.hive(with: transientKettleAccessor, image: 9_971)
        defer { TypedRecords.remove(image: 9_971) }
        let first = try hive.createService(KettleKey.self)
        let second = try hive.createService(KettleKey.self)
        #expect(first !== second)
        #expect(hive.existingService(KettleKey.self) == nil)
        #expect(hive.sharedInstance(ObjectIdentifier(KettleKey.self), name: nil) == nil)
    }

    @Test("an initializer that asks for its own service is told cyclicDependency; the instance is still made")
    func cycle() throws {
        let hive = try Self.hive(with: selfAskingKettleAccessor, image: 9_972)
        defer {
            TypedRecords.remove(image: 9_972)
            SelfAskingKettle.hive.withLock { $0 = nil }
        }
        SelfAskingKettle.hive.withLock { $0 = hive }
        let kettle = try hive.createService(KettleKey.self)
        #expect(selfAskingKettleAnswer.withLock { $0 } == "cyclicDependency")
        #expect(try hive.createService(KettleKey.self) === kettle)
    }

    @Test("a removed instance is made again (the general path) and kept for the cached path")
    func removedInstance() throws {
        let hive = try Self.hive(with: slowKettleAccessor, image: 9_974)
        defer { TypedRecords.remove(image: 9_974) }
        let first = try hive.createService(KettleKey.self)
        hive.removeServiceInstance(KettleKey.self)
        #expect(hive.existingService(KettleKey.self) == nil)
        let second = try hive.createService(KettleKey.self)
        #expect(second !== first && second.serial != first.serial)
        #expect(try hive.createService(KettleKey.self) === second)
    }

    @Test("a registration that outranks the record's, made while its instance is made: not cached, serves next")
    func outrankedDuringFirstUse() throws {
        let hive = try Self.hive(with: outrankedKettleAccessor, image: 9_975)
        defer {
            TypedRecords.remove(image: 9_975)
            OutrankedKettle.hive.withLock { $0 = nil }
        }
        OutrankedKettle.hive.withLock { $0 = hive }
        #expect(try hive.createService(KettleKey.self) is OutrankedKettle, "the request that made it gets it")
        let next = try hive.createService(KettleKey.self)
        #expect(next is TransientKettle, "the registration that outranks it, not the instance made meanwhile")
        #expect(try hive.createService(KettleKey.self) === next)
    }

    @Test("a registration that outranks the record's after its first use serves the next request")
    func outrankedAfterFirstUse() throws {
        let hive = try Self.hive(with: slowKettleAccessor, image: 9_973)
        defer { TypedRecords.remove(image: 9_973) }
        let recorded = try hive.createService(KettleKey.self)
        #expect(recorded is SlowKettle)
        try hive.register(KettleKey.self, scope: .singleton, rank: 1) { _ in TransientKettle() }
        let replacing = try hive.createService(KettleKey.self)
        #expect(replacing is TransientKettle)
        #expect(try hive.createService(KettleKey.self) === replacing)
    }
}
