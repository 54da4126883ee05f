import BeeHive
import BeeHiveModules
import BeeHiveServiceLifecycle
import Foundation
import Logging
import ServiceLifecycle
import Testing

final class Journal: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    func append(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}

final class JournaledModule: HiveModule {
    init() {}
    static var events: Set<ModuleEvent> { [.willTerminate] }
    func write(_ s: String, _ c: ModuleContext) { (c.customParameters["journal"] as? Journal)?.append(s) }
    func modSetUp(_ context: ModuleContext) throws { write("setUp", context) }
    func modInit(_ context: ModuleContext) throws { write("init", context) }
    func modSplash(_ context: ModuleContext) throws { write("splash", context) }
    func modTearDown(_ context: ModuleContext) throws { write("tearDown", context) }
    func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws { write("\(event)", context) }
}

@Suite("swift-service-lifecycle integration")
struct ModuleLifecycleServiceTests {
    @Test("a ServiceGroup starts the modules and tears them down on graceful shutdown")
    func gracefulShutdown() async throws {
        let hive = Hive()
        let journal = Journal()
        let manager = ModuleManager(
            hive: hive, context: ModuleContext(hive: hive, customParameters: ["journal": journal]))
        try manager.register(JournaledModule.self)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: ModuleLifecycleService(manager: manager, reloadsOnHangup: false))],
                logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            while !journal.all.contains("splash") { try await Task.sleep(for: .milliseconds(10)) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(journal.all == ["setUp", "init", "splash", "willTerminate", "tearDown"])
    }
}
