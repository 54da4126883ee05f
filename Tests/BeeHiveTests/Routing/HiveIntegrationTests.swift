import Foundation
import Testing

@testable import BeeHive
@testable import BeeHiveMediator
@testable import BeeHiveModules
@testable import BeeHiveRouter

protocol CartService {}

final class CartServiceImpl: CartService, ActionHandling, ServiceImplementation, @unchecked Sendable {
    static var isSingleton: Bool { true }
    private let lock = NSLock()
    private var items: [String] = []
    init() {}

    func handleAction(_ action: String, parameters: RouteParameters) throws -> Any? {
        guard action == "add" else {
            throw RouterError.unknownAction(action, service: "CartService", available: ["add"])
        }
        let sku = try parameters.string("sku")
        lock.lock()
        defer { lock.unlock() }
        items.append(sku)
        return items.count
    }
}

struct Target_Greeting: MediatorTarget {
    init() {}
    static let actions: [MediatorAction<Target_Greeting>] = [
        .local("hello") { _, request in "hello \(try request.parameters.string("name"))" }
    ]
}

@Suite("Routing and mediation backed by the hive")
struct HiveIntegrationTests {
    @Test("a service call URL resolves the service from a hive and calls its action")
    func serviceCall() throws {
        let hive = Hive()
        try hive.register(service: CartService.self, impl: CartServiceImpl.self)
        let router = Router(scheme: "shop", serviceResolver: .hive(hive))
        #expect(try router.open("shop://call.service/BeeHiveTests.CartService.add?sku=42") as? Int == 1)
        #expect(try router.open("shop://call.service/BeeHiveTests.CartService.add?sku=7") as? Int == 2)
        #expect(throws: (any Error).self) { try router.open("shop://call.service/BeeHiveTests.CartService.remove") }
    }

    @Test("a service that cannot handle actions is a clear error")
    func notActionHandling() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: MemoryStorage.self)
        let router = Router(scheme: "shop", serviceResolver: .hive(hive))
        #expect {
            try router.open("shop://call.service/BeeHiveTests.Storage.add")
        } throws: { error in
            "\(error)".contains("expected service BeeHiveTests.Storage to conform to ActionHandling")
        }
    }

    @Test("the shared mediator finds Target_ types by module-qualified name in the loaded images")
    func sharedMediator() throws {
        #expect(Mediator.shared.hasTarget(named: "BeeHiveTests.Greeting"))
        let result = try Mediator.shared.perform(
            target: "BeeHiveTests.Greeting", action: "hello", params: ["name": "ada"])
        #expect(result as? String == "hello ada")
    }

    @Test("start() loads the module and service files the context names")
    func configuredFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let modules = directory.appendingPathComponent("BeeHive.json")
        let services = directory.appendingPathComponent("BHService.json")
        try Data(#"{"moduleClasses":[{"moduleClass":"BeeHiveTests.ModuleA","moduleLevel":0}]}"#.utf8).write(to: modules)
        try Data(#"[{"service":"BeeHiveTests.Storage","impl":"BeeHiveTests.MemoryStorage"}]"#.utf8).write(to: services)
        let hive = Hive()
        let log = EventLog()
        let context = ModuleContext(
            hive: hive, moduleConfigName: modules.path, serviceConfigName: services.path, customParameters: ["log": log]
        )
        let manager = ModuleManager(hive: hive, context: context)
        await manager.start()
        #expect(log.events("init") == ["ModuleA"])
        #expect(try hive.createService(Storage.self).label == "memory")
    }
}
