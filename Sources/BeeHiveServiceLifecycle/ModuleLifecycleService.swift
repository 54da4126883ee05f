import BeeHive
import BeeHiveModules
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs BeeHive modules as a service of a swift-service-lifecycle `ServiceGroup`.
///
/// When the group starts it, the modules get setUp, init (async ones off the group's task) and splash.
/// On graceful shutdown (the group's SIGTERM/SIGINT handling, or `triggerGracefulShutdown()`), they get
/// willTerminate and then tearDown in reverse order. SIGHUP becomes the reload event. Signals then go
/// through service-lifecycle: do not also call `ModuleManager.installSystemEventHandlers`.
///
/// ```swift
/// let modules = ModuleLifecycleService(manager: .shared)
/// let group = ServiceGroup(
///     configuration: .init(services: [.init(service: modules)], gracefulShutdownSignals: [.sigterm, .sigint],
///                          logger: logger))
/// try await group.run()
/// ```
public struct ModuleLifecycleService: Service, CustomStringConvertible {
    /// The modules this service runs.
    public let manager: ModuleManager
    /// Whether SIGHUP delivers ``BeeHive/ModuleEvent/reload``.
    public let reloadsOnHangup: Bool

    /// Creates the service.
    /// - Parameters:
    ///   - manager: The modules to run.
    ///   - reloadsOnHangup: Deliver the reload event on SIGHUP.
    public init(manager: ModuleManager = .shared, reloadsOnHangup: Bool = true) {
        self.manager = manager
        self.reloadsOnHangup = reloadsOnHangup
    }

    public var description: String { "BeeHive modules" }

    /// Starts the modules, waits for graceful shutdown, then tears them down.
    public func run() async throws {
        manager.start()
        await manager.ready()
        let manager = self.manager
        let reloads = reloadsOnHangup
        await withTaskGroup(of: Void.self) { group in
            if reloads {
                group.addTask {
                    for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
                        manager.trigger(.reload, parameters: ["signal": Int(SIGHUP)])
                    }
                }
            }
            group.addTask {
                try? await gracefulShutdown()
            }
            await group.next()
            group.cancelAll()
        }
        manager.terminate()
    }
}
