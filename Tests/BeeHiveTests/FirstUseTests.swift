import Synchronization
import Testing

@testable import BeeHive

// Implementations named only by strings, resolved by type: the path that assembles existentials from the
// conformance records of the implementation's module instead of asking the Swift runtime to cast.

protocol WideValueService { var sum: Int { get } }
/// Too large for an existential's inline buffer: the value lives in a box.
struct WideValue: WideValueService, ServiceImplementation {
    var a = 1, b = 2, c = 3, d = 4, e = 5
    var sum: Int { a + b + c + d + e }
}

protocol CountedService: AnyObject { var id: Int { get } }
protocol OpaqueCountedService { var id: Int { get } }
let liveCounted = Atomic<Int>(0)
let madeCounted = Atomic<Int>(0)
/// Counts its instances, to show that assembled existentials retain and release exactly once.
final class Counted: CountedService, OpaqueCountedService, ServiceImplementation {
    let id: Int
    init() {
        id = madeCounted.add(1, ordering: .relaxed).newValue
        liveCounted.add(1, ordering: .relaxed)
    }
    deinit { liveCounted.subtract(1, ordering: .relaxed) }
}

protocol InheritedService { func name() -> String }
/// Declares the conformance its subclass inherits: the subclass's module has no record of its own for it.
class BaseNamer: InheritedService, ServiceImplementation, @unchecked Sendable {
    required init() {}
    func name() -> String { "base" }
}
final class DerivedNamer: BaseNamer, @unchecked Sendable {
    override func name() -> String { "derived" }
}

/// Implements a composition of two protocols.
final class PoliteGreeting: GreetingService, CustomStringConvertible, ServiceImplementation {
    func greet() -> String { "good day" }
    var description: String { "polite" }
}

@Suite("First use of services registered by name", .serialized)
struct FirstUseTests {
    @Test("a struct too large for the inline buffer resolves by name with its value intact")
    func wideStruct() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.WideValueService", impl: "BeeHiveTests.WideValue")
        #expect(try hive.createService(WideValueService.self).sum == 15)
        #expect(try hive.createService(WideValueService.self).sum == 15)
    }

    @Test("class-bound and opaque existentials of one class hold their instance exactly once")
    func retainsAndReleasesOnce() throws {
        let before = liveCounted.load(ordering: .relaxed)
        do {
            let hive = Hive()
            try hive.register(service: "BeeHiveTests.CountedService", impl: "BeeHiveTests.Counted")
            try hive.register(service: "BeeHiveTests.OpaqueCountedService", impl: "BeeHiveTests.Counted")
            var ids: Set<Int> = []
            for _ in 0..<50 {
                ids.insert(try hive.createService(CountedService.self).id)
                ids.insert(try hive.createService(OpaqueCountedService.self).id)
            }
            #expect(ids.count == 100)
        }
        #expect(liveCounted.load(ordering: .relaxed) == before)
    }

    @Test("an inherited conformance, which the subclass's records do not list, falls back to the cast")
    func inheritedConformance() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.InheritedService", impl: "BeeHiveTests.DerivedNamer")
        #expect(try hive.createService(InheritedService.self).name() == "derived")
    }

    @Test("a composition of protocols is not assembled: it is cast")
    func composition() throws {
        let hive = Hive()
        let service = (any GreetingService & CustomStringConvertible).self
        try hive.register(service: _typeName(service, qualified: true), impl: "BeeHiveTests.PoliteGreeting")
        #expect(try hive.createService(service).description == "polite")
    }

    @Test("an implementation that does not conform is still refused")
    func nonConforming() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.CountedService", impl: "BeeHiveTests.EnglishGreeting")
        let error = #expect(throws: HiveError.self) { try hive.createService(CountedService.self) }
        #expect(error?.code == .doesNotConform)
    }

    @Test("the existential shapes assembled: one protocol, class-bound or not")
    func shapes() {
        #expect(Conformances.singleProtocol(of: (any CountedService).self)?.isClassBound == true)
        #expect(Conformances.singleProtocol(of: (any OpaqueCountedService).self)?.isClassBound == false)
        #expect(Conformances.singleProtocol(of: (any GreetingService & CustomStringConvertible).self) == nil)
        #expect(Conformances.singleProtocol(of: (any GreetingService & Sendable).self)?.isClassBound == false)
        #expect(Conformances.singleProtocol(of: (any Error).self) == nil)
        #expect(Conformances.singleProtocol(of: Int.self) == nil)
    }
}
