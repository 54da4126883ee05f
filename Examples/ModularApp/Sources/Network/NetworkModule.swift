import AppServices
import BeeHive
import BeeHiveModules
import NetworkAnnotations
import Synchronization

public final class NetworkServiceImpl: NetworkService, ServiceImplementation {
    public static var isSingleton: Bool { true }
    private let online = Atomic(false)
    public init() {}
    public var isOnline: Bool { online.load(ordering: .acquiring) }
    func connect() { online.store(true, ordering: .releasing) }
}

/// An async module (declared with `true` in its record): its init runs as a child task, concurrently with the
/// other inits, and awaits without blocking a thread; splash waits for it.
public final class NetworkModule: HiveModule {
    public init() {}
    public func modInit(_ context: ModuleContext) async throws {
        print("  [network] init (async): connecting…")
        try await Task.sleep(for: .milliseconds(150))
        (try context.hive.createService(NetworkService.self) as? NetworkServiceImpl)?.connect()
        print("  [network] connected")
    }
    public func modTearDown(_ context: ModuleContext) async throws {
        print("  [network] tearDown: disconnecting")
        try await Task.sleep(for: .milliseconds(10))
    }
}
