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
        try await manager.register(JournaledModule.self)
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

    @Test("run() awaits async hooks: start before anything else, terminate after graceful shutdown, in order")
    func asyncHooks() async throws {
        let hive = Hive()
        let journal = Journal()
        let manager = ModuleManager(
            hive: hive, context: ModuleContext(hive: hive, customParameters: ["journal": journal]))
        try await manager.register(AsyncJournaledModule.self, level: .basic)
        try await manager.register(IOSStyleJournaledModule.self, level: .application)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: ModuleLifecycleService(manager: manager, reloadsOnHangup: false))],
                logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await manager.ready()
            #expect(journal.all.suffix(2) == ["async splash end", "iOS splash"], "ready() before splash ended")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(
            journal.all == [
                "async setUp end", "iOS setUp", "async init end", "iOS init", "async splash end", "iOS splash",
                "async willTerminate end", "iOS willTerminate", "iOS tearDown", "async tearDown end",
            ])
    }
}

/// Async hooks that sleep before they write: a hook that was not awaited would be overtaken by the next module's.
final class AsyncJournaledModule: HiveModule {
    init() {}
    func write(_ s: String, _ c: ModuleContext) async throws {
        try await Task.sleep(for: .milliseconds(30))
        (c.customParameters["journal"] as? Journal)?.append("async \(s) end")
    }
    func modSetUp(_ context: ModuleContext) async throws { try await write("setUp", context) }
    func modInit(_ context: ModuleContext) async throws { try await write("init", context) }
    func modSplash(_ context: ModuleContext) async throws { try await write("splash", context) }
    func modWillTerminate(_ context: ModuleContext) async throws { try await write("willTerminate", context) }
    func modTearDown(_ context: ModuleContext) async throws { try await write("tearDown", context) }
}

/// Synchronous hooks, written as on iOS, `modWillTerminate` included.
final class IOSStyleJournaledModule: HiveModule {
    init() {}
    func write(_ s: String, _ c: ModuleContext) { (c.customParameters["journal"] as? Journal)?.append("iOS \(s)") }
    func modSetUp(_ context: ModuleContext) { write("setUp", context) }
    func modInit(_ context: ModuleContext) { write("init", context) }
    func modSplash(_ context: ModuleContext) { write("splash", context) }
    func modWillTerminate(_ context: ModuleContext) { write("willTerminate", context) }
    func modTearDown(_ context: ModuleContext) { write("tearDown", context) }
}
