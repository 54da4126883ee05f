import AppServices
import BeeHive
import BeeHiveModules
import NetworkAnnotations
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

public final class NetworkServiceImpl: NetworkService, ServiceImplementation {
    public static var isSingleton: Bool { true }
    private let online = Atomic(false)
    public init() {}
    public var isOnline: Bool { online.load(ordering: .acquiring) }
    func connect() { online.store(true, ordering: .releasing) }
}

/// An async module: its init runs off the caller's thread; splash waits for it.
public final class NetworkModule: HiveModule {
    public init() {}
    public func modInit(_ context: ModuleContext) throws {
        print("  [network] init (async): connecting…")
        usleep(150_000)
        (try context.hive.createService(NetworkService.self) as? NetworkServiceImpl)?.connect()
        print("  [network] connected")
    }
    public func modTearDown(_ context: ModuleContext) throws { print("  [network] tearDown: disconnecting") }
}
