import Synchronization
import Testing

@testable import BeeHive

protocol Storage: AnyObject { var label: String { get } }
protocol Unregistered {}

final class MemoryStorage: Storage, ServiceImplementation {
    init() {}
    var label: String { "memory" }
}

final class SingletonStorage: Storage, ServiceImplementation {
    static var isSingleton: Bool { true }
    init() {}
    var label: String { "singleton" }
}

final class PresetStorage: Storage, ServiceImplementation, Sendable {
    static var isSingleton: Bool { true }
    static let preset = PresetStorage(label: "preset")
    static var sharedInstance: PresetStorage? { preset }
    let label: String
    init() { label = "fresh" }
    init(label: String) { self.label = label }
}

@Suite("Service manager")
struct ServiceManagerTests {
    @Test("explicit registration by types resolves")
    func registerTypes() throws {
        let hive = Hive()
        let registration = try hive.register(service: Storage.self, impl: MemoryStorage.self)
        #expect(registration.service == "BeeHiveTests.Storage")
        #expect(registration.implementation == "BeeHiveTests.MemoryStorage")
        #expect(registration.source.isCode)
        #expect(try hive.createService(Storage.self).label == "memory")
        #expect(hive.hasService(Storage.self))
        #expect(!hive.hasService(Unregistered.self))
    }

    @Test("the compile-time-checked factory form registers by type, with a name and a scope")
    func registerFactoryForm() throws {
        let hive = Hive()
        let registration = try hive.register(Storage.self) { _ in MemoryStorage() }
        try hive.register(Storage.self, name: "preset", scope: .singleton) { _ in PresetStorage(label: "made once") }
        #expect(registration.service == "BeeHiveTests.Storage")
        #expect(registration.source.isCode)
        #expect(try hive.createService(Storage.self).label == "memory")
        let first = try hive.createService(Storage.self, name: "preset")
        let second = try hive.createService(Storage.self, name: "preset")
        #expect(ObjectIdentifier(first) == ObjectIdentifier(second))
        #expect(first.label == "made once")
    }

    @Test("validate() finds a module whose type is not loaded (a typo would leave it silently never run), once")
    func validateFindsUnknownModules() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: MemoryStorage.self)
        try hive.declareModule("BeeHiveTests.NoSuchModule", fileID: "App/Modules.swift", line: 12)
        let error = #expect(throws: HiveError.self) { try hive.validate() }
        #expect(error?.code == .validationFailed)
        #expect(error?.message.contains("App/Modules.swift:12") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("BeeHiveTests.NoSuchModule (a module)") == true)
        #expect(throws: HiveError.self) { try hive.validate() }
        #expect(hive.diagnostics.filter { $0.code == .unknownType }.count == 1, "reported once, not per validation")
    }

    @Test("registration by names resolves the type lazily")
    func registerNames() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.Storage", impl: "BeeHiveTests.MemoryStorage")
        #expect(try hive.createService(Storage.self).label == "memory")
    }

    @Test("singletons give one instance; transients a new one; shouldCache false bypasses the cache")
    func scopes() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: SingletonStorage.self)
        try hive.register(service: Storage.self, impl: MemoryStorage.self, name: "transient")
        let a = try hive.createService(Storage.self)
        #expect(same(a, try hive.createService(Storage.self)))
        #expect(!same(a, try hive.createService(Storage.self, shouldCache: false)))
        #expect(
            !same(
                try hive.createService(Storage.self, name: "transient"),
                try hive.createService(Storage.self, name: "transient")))
    }

    @Test("a singleton's sharedInstance is used when it has one")
    func sharedInstance() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: PresetStorage.self)
        #expect(same(try hive.createService(Storage.self), PresetStorage.preset))
    }

    @Test("removing a service instance makes the next request create a new one")
    func removeInstance() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: SingletonStorage.self)
        let first = try hive.createService(Storage.self)
        hive.removeServiceInstance(Storage.self)
        let second = try hive.createService(Storage.self)
        #expect(!same(first, second))
        #expect(same(second, try hive.createService(Storage.self)))
    }

    @Test("factories in both scopes")
    func factories() throws {
        let hive = Hive()
        let made = Atomic<Int>(0)
        try hive.register(service: Storage.self, scope: .singleton) { _ in
            made.add(1, ordering: .relaxed)
            return MemoryStorage()
        }
        try hive.register(service: Storage.self, name: "each", scope: .transient) { _ in MemoryStorage() }
        _ = try hive.createService(Storage.self)
        _ = try hive.createService(Storage.self)
        #expect(made.load(ordering: .relaxed) == 1)
        #expect(
            !same(
                try hive.createService(Storage.self, name: "each"), try hive.createService(Storage.self, name: "each")))
    }

    @Test("a throwing factory gives creationFailed, and a later call tries again")
    func throwingFactory() throws {
        struct Boom: Error {}
        let hive = Hive()
        let calls = Atomic<Int>(0)
        try hive.register(service: Storage.self, scope: .singleton) { _ in
            if calls.add(1, ordering: .relaxed).newValue == 1 { throw Boom() }
            return MemoryStorage()
        }
        let error = #expect(throws: HiveError.self) { try hive.createService(Storage.self) }
        #expect(error?.code == .creationFailed)
        #expect(try hive.createService(Storage.self).label == "memory")
    }

    @Test("by default the first registration wins and the duplicate is a warning naming both sources")
    func duplicateDefault() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: MemoryStorage.self)
        try hive.register(service: Storage.self, impl: SingletonStorage.self)
        #expect(try hive.createService(Storage.self).label == "memory")
        let warning = try #require(hive.diagnostics.first)
        #expect(warning.severity == .warning && warning.code == .duplicateRegistration)
        #expect(
            warning.message.contains("BeeHiveTests.MemoryStorage")
                && warning.message.contains("BeeHiveTests.SingletonStorage"))
        #expect(warning.message.contains("ServiceManagerTests.swift:"))
    }

    @Test("strict mode throws on a duplicate")
    func duplicateStrict() throws {
        let hive = Hive(options: .init(isStrict: true))
        try hive.register(service: Storage.self, impl: MemoryStorage.self)
        let error = #expect(throws: HiveError.self) {
            try hive.register(service: Storage.self, impl: SingletonStorage.self)
        }
        #expect(error?.code == .duplicateRegistration)
        #expect(hive.diagnostics.first?.severity == .error)
    }

    @Test("a missing service names what is registered")
    func notFound() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: MemoryStorage.self)
        let error = #expect(throws: HiveError.self) { try hive.createService(Unregistered.self) }
        #expect(error?.code == .serviceNotFound)
        #expect(error?.message.contains("BeeHiveTests.Unregistered") == true)
        #expect(error?.message.contains("Registered services: BeeHiveTests.Storage") == true)
    }

    @Test("an unqualified registration does not serve a qualified request: the error names it and its source")
    func noUnqualifiedFallback() throws {
        let hive = Hive()
        try hive.register(service: "Storage", impl: "BeeHiveTests.MemoryStorage")
        let error = #expect(throws: HiveError.self) { try hive.createService(Storage.self) }
        #expect(error?.code == .serviceNotFound)
        #expect(error?.message.contains("Storage is registered without its module by") == true)
        #expect(error?.message.contains("as BeeHiveTests.Storage") == true)
        #expect(error?.source == hive.registration(for: "Storage")?.source)
        #expect(hive.registration(for: "BeeHiveTests.Storage") == nil)
    }

    @Test("an initializer asking for its own service on the same thread is a cycle, not a deadlock")
    func cycle() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, scope: .singleton) { hive in
            _ = try hive.createService(Storage.self)
            return MemoryStorage()
        }
        let error = #expect(throws: HiveError.self) { try hive.createService(Storage.self) }
        #expect(error?.code == .cyclicDependency)
    }

    @Test("a factory may resolve other services: no lock is held while it runs")
    func nestedResolution() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: MemoryStorage.self, name: "inner")
        try hive.register(service: Storage.self, scope: .singleton) { hive in
            try hive.createService(Storage.self, name: "inner")
        }
        #expect(try hive.createService(Storage.self).label == "memory")
    }

    @Test("module declarations from code")
    func declareModule() throws {
        let hive = Hive()
        try hive.declareModule("App.Network", level: .basic, priority: 10, isAsync: true)
        try hive.declareModule("App.Network")
        #expect(hive.moduleDeclarations.count == 1)
        #expect(hive.moduleDeclarations.first?.priority == 10)
        #expect(hive.diagnostics.first?.code == .duplicateRegistration)
    }

    @Test("bootstrap after the shared hive was used is refused")
    func lateBootstrap() {
        _ = Hive.shared
        let error = #expect(throws: HiveError.self) { try Hive.bootstrap(.init(isStrict: true)) }
        #expect(error?.code == .alreadyBootstrapped)
    }
}
