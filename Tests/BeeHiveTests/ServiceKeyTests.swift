import Testing

@testable import BeeHive

protocol Thermometer: AnyObject, Sendable { var celsius: Int { get } }

/// A key written by hand, as `@BeeHiveServiceKey` writes one: `Service` is the protocol, the name is its name.
enum ThermometerKey: ServiceKey {
    typealias Service = any Thermometer
    static var serviceName: String { "BeeHiveTests.Thermometer" }
}

/// A key whose name names no registration.
enum MisspelledKey: ServiceKey {
    typealias Service = any Thermometer
    static var serviceName: String { "BeeHiveTests.Thermometr" }
}

final class LabThermometer: Thermometer, ServiceImplementation {
    static var isSingleton: Bool { true }
    let celsius = Int.random(in: 0..<1_000)
}

final class OutdoorThermometer: Thermometer, ServiceImplementation {
    let celsius = -3
}

final class NotAThermometer: ServiceImplementation {}

protocol KeyedGreeter: AnyObject, Sendable { func greet() -> String }
/// `typealias GreeterAlias = KeyedGreeter`: an annotation that names the protocol through it still registers under
/// the key, and under the key's name of the service.
typealias GreeterAlias = KeyedGreeter
enum KeyedGreeterKey: ServiceKey {
    typealias Service = any KeyedGreeter
    static var serviceName: String { "BeeHiveTests.KeyedGreeter" }
}
/// What `@BeeHiveServiceKey` declares beside `KeyedGreeter`: `@BeeHiveService(GreeterAlias.self)` finds it.
func _beeHiveServiceKey(_: (any KeyedGreeter).Type) -> KeyedGreeterKey.Type { KeyedGreeterKey.self }

final class KeyedGreeterImpl: KeyedGreeter, ServiceImplementation {
    static var isSingleton: Bool { true }
    func greet() -> String { "keyed" }
}

/// What `@BeeHiveService(GreeterAlias.self)` writes, with the key in scope: the typed record is the key's.
let keyedGreeterAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    _BeeHiveTypedRecord.write(
        json: #"""
            {"service":"BeeHiveTests.GreeterAlias","impl":"BeeHiveTests.KeyedGreeterImpl",\#
            "file":"A/K.swift","line":3}
            """#,
        .service(
            _beeHiveServiceKey(GreeterAlias.self), implementation: KeyedGreeterImpl.self,
            named: "BeeHiveTests.KeyedGreeterImpl", serviceNamed: "BeeHiveTests.GreeterAlias", file: "A/K.swift",
            line: 3, upcast: { $0 }), to: out, type: type, hint: hint)
}

/// Asking for a service by its ``ServiceKey``: registrations made any way are found by the key's name, an instance is
/// boxed as the key's service, and a shared one is the one asked for by type.
@Suite("Service keys")
struct ServiceKeyTests {
    @Test("a key finds a registration made by type, and its shared instance is the one asked for by type")
    func registeredByType() throws {
        let hive = Hive()
        try hive.register(service: Thermometer.self, impl: LabThermometer.self)
        let byKey = try hive.createService(ThermometerKey.self)
        #expect(try hive.createService(ThermometerKey.self) === byKey, "the cached path")
        #expect(try hive.createService(Thermometer.self) === byKey)
        #expect(hive.sharedInstance(ObjectIdentifier(ThermometerKey.self), name: nil) != nil)
    }

    @Test("a key finds a registration by name, and a named one")
    func registeredByName() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.Thermometer", impl: "BeeHiveTests.LabThermometer")
        try hive.register(service: "BeeHiveTests.Thermometer", impl: "BeeHiveTests.OutdoorThermometer", name: "outdoor")
        #expect(try hive.createService(ThermometerKey.self) is LabThermometer)
        #expect(try hive.createService(ThermometerKey.self, name: "outdoor").celsius == -3)
        let first = try hive.createService(ThermometerKey.self, name: "outdoor")
        #expect(try hive.createService(ThermometerKey.self, name: "outdoor") !== first, "a transient implementation")
    }

    @Test("shouldCache: false and a removed instance give new instances; the registration stays")
    func notCached() throws {
        let hive = Hive()
        try hive.register(service: Thermometer.self, impl: LabThermometer.self)
        let shared = try hive.createService(ThermometerKey.self)
        #expect(try hive.createService(ThermometerKey.self, shouldCache: false) !== shared)
        hive.removeServiceInstance(ThermometerKey.self)
        let next = try hive.createService(ThermometerKey.self)
        #expect(next !== shared)
        #expect(try hive.createService(ThermometerKey.self) === next)
    }

    @Test("async: the key's service, the same shared instance")
    func asynchronous() async throws {
        let hive = Hive()
        try hive.register(service: Thermometer.self, impl: LabThermometer.self)
        let byKey = try await hive.service(ThermometerKey.self)
        #expect(try await hive.service(ThermometerKey.self) === byKey)
        #expect(try hive.createService(Thermometer.self) === byKey)
    }

    @Test("a key whose name no registration has is serviceNotFound, naming the service and the closest name")
    func notFound() throws {
        let hive = Hive()
        try hive.register(service: Thermometer.self, impl: LabThermometer.self)
        let error = #expect(throws: HiveError.self) { try hive.createService(MisspelledKey.self) }
        #expect(error?.code == .serviceNotFound)
        #expect(error?.message.contains("BeeHiveTests.Thermometr") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("BeeHiveTests.Thermometer") == true, "did you mean: \(error?.message ?? "")")
        #expect(try hive.createService(ThermometerKey.self) is LabThermometer, "no later call affected")
    }

    @Test("an implementation that does not conform to the key's service is doesNotConform")
    func doesNotConform() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.Thermometer", impl: "BeeHiveTests.NotAThermometer")
        let error = #expect(throws: HiveError.self) { try hive.createService(ThermometerKey.self) }
        #expect(error?.code == .doesNotConform, "\(error?.message ?? "")")
    }

    @Test("a keyed record registers under the key and the key's name; by key, by type and by name, one singleton")
    func keyedRecord() throws {
        let hive = Hive()
        defer { TypedRecords.remove(image: 9_980) }
        let (parsed, problems) = SwiftRecordSection.parse(keyedGreeterAccessor, imageID: 9_980, in: hive)
        #expect(problems.isEmpty)
        let entry = try #require(parsed.services.first)
        #expect(entry.serviceType == ObjectIdentifier(KeyedGreeterKey.self), "indexed by the key, not by the type")
        #expect(entry.registration.service == "BeeHiveTests.KeyedGreeter", "the key's name, not the alias's")
        #expect(hive.add(services: parsed.services).isEmpty)
        let byKey = try hive.createService(KeyedGreeterKey.self)
        #expect(byKey.greet() == "keyed")
        let byType = try hive.createService(KeyedGreeter.self)
        #expect(byType === byKey)
        // The by-type request took the instance in the key's box: no conformance was assembled for it.
        let box = hive.sharedInstance(ObjectIdentifier((any KeyedGreeter).self), name: nil)
        #expect(box?.key != nil, "the key's box serves the request by type")
        #expect(
            hive.sharedInstance(ObjectIdentifier(KeyedGreeterKey.self), name: nil) != nil,
            "asked for as a second type, the instance stays on the cached path for the first")
        #expect(try hive.createService(named: "BeeHiveTests.KeyedGreeter") as? KeyedGreeterImpl === byKey)
        #expect(try hive.createService(GreeterAlias.self) === byKey)
        #expect(hive.nonConformingImplementations().isEmpty, "the key's name is the service's: no typealias error")
    }

    @Test("the questions by type take a key as its service: registered, existing, alternatives, observed, leased")
    func questionsByKey() async throws {
        let hive = Hive()
        #expect(!hive.hasService(ThermometerKey.self))
        #expect(hive.existingService(ThermometerKey.self) == nil)
        let events = LockedValue<[String]>([])
        let observation = hive.observe(ThermometerKey.self) { event in events.withLock { $0.append("\(event)") } }
        defer { observation.cancel() }
        try hive.register(service: Thermometer.self, impl: LabThermometer.self, properties: ["room": "lab"])
        #expect(hive.hasService(ThermometerKey.self))
        #expect(hive.existingService(ThermometerKey.self) == nil, "none made yet")
        let made = try hive.withService(ThermometerKey.self) { $0 }
        #expect(hive.existingService(ThermometerKey.self) === made)
        #expect(try await hive.withService(ThermometerKey.self) { thermometer async in thermometer } === made)
        #expect(try hive.services(ThermometerKey.self) { $0["room"] == "lab" }.map { $0 === made } == [true])
        #expect(try hive.services(ThermometerKey.self) { $0["room"] == "attic" }.isEmpty)
        var seen = false
        for _ in 0..<200 where !seen {
            seen = events.withLock { $0.contains { $0.contains("BeeHiveTests.LabThermometer") } }
            if !seen { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(seen, "the observer by key gets the registration's event: \(events.withLock { $0 })")
    }

    @Test("registered in code under a key: a factory, an implementation type, and a type that does not conform")
    func registeredUnderKey() throws {
        let hive = Hive()
        let registration = try hive.register(ThermometerKey.self, scope: .singleton) { _ in LabThermometer() }
        #expect(registration.service == "BeeHiveTests.Thermometer")
        let made = try hive.createService(ThermometerKey.self)
        #expect(made is LabThermometer)
        #expect(try hive.createService(ThermometerKey.self) === made)
        #expect(try hive.createService(Thermometer.self) === made, "by type: the key's box holds the type")
        let named = try hive.register(service: ThermometerKey.self, impl: OutdoorThermometer.self, name: "outdoor")
        #expect(named.service == "BeeHiveTests.Thermometer")
        #expect(named.implementation == "BeeHiveTests.OutdoorThermometer")
        #expect(try hive.createService(ThermometerKey.self, name: "outdoor").celsius == -3)
        let refused = #expect(throws: HiveError.self) {
            try hive.register(service: ThermometerKey.self, impl: NotAThermometer.self, name: "wrong")
        }
        #expect(refused?.code == .doesNotConform, "\(refused?.message ?? "")")
        #expect(!hive.hasService(ThermometerKey.self, name: "wrong"), "a refused registration leaves the name free")
    }

    @Test("a box made under a key destroys its value as the key's service")
    func boxDestroysValue() {
        weak var released: LabThermometer?
        do {
            let thermometer = LabThermometer()
            released = thermometer
            let box = TypedInstance(thermometer as any Thermometer, key: ThermometerKey.self)
            #expect(box.value(as: (any Thermometer).self) === thermometer)
            #expect(ObjectIdentifier(box.type) == ObjectIdentifier(ThermometerKey.self))
        }
        #expect(released == nil)
    }
}
