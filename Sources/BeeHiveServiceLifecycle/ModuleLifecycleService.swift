import BeeHive
import BeeHiveModules
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs BeeHive modules as a service of a swift-service-lifecycle `ServiceGroup`, in structured concurrency.
///
/// ``run()`` awaits `ModuleManager.start(parameters:)` (setUp, init, with the async modules' inits as child
/// tasks, then splash), waits for graceful shutdown (the group's SIGTERM/SIGINT handling, or
/// `triggerGracefulShutdown()`), then awaits `ModuleManager.terminate(parameters:)` (willTerminate, then tearDown
/// in reverse order) and returns. SIGHUP becomes the reload event meanwhile. Signals then go through
/// service-lifecycle: do not also call `ModuleManager.installSystemEventHandlers`.
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
    /// Whether SIGHUP delivers `ModuleEvent.reload`.
    public let reloadsOnHangup: Bool

    /// Creates the service.
    ///
    /// ```swift
    /// let service = ModuleLifecycleService(manager: manager, reloadsOnHangup: false)
    /// ```
    /// - Parameters:
    ///   - manager: The modules to run.
    ///   - reloadsOnHangup: Deliver the reload event on SIGHUP.
    public init(manager: ModuleManager = .shared, reloadsOnHangup: Bool = true) {
        self.manager = manager
        self.reloadsOnHangup = reloadsOnHangup
    }

    /// "BeeHive modules", the name the service group logs.
    ///
    /// ```swift
    /// print(ModuleLifecycleService())   // BeeHive modules
    /// ```
    public var description: String { "BeeHive modules" }

    /// Starts the modules, waits for graceful shutdown, then tears them down; returns when tearDown is done.
    ///
    /// Everything runs in this task and its child tasks:
    /// 1. `await manager.start()`. A SIGHUP that arrives meanwhile is delivered once start has returned.
    /// 2. Until graceful shutdown (`gracefulShutdown()`), each SIGHUP (when ``reloadsOnHangup``) awaits
    ///    `manager.trigger(.reload)`, in a child task.
    /// 3. `await manager.terminate()`: willTerminate, then tearDown in reverse order.
    ///
    /// If the task is cancelled instead (the group ends without a graceful shutdown), step 2 ends at once and
    /// tearDown still runs, its hooks seeing `Task.isCancelled`.
    ///
    /// ```swift
    /// try await ModuleLifecycleService(manager: manager).run()   // usually run by a ServiceGroup
    /// ```
    public func run() async throws {
        let manager = self.manager
        // Trapped before the modules start: a SIGHUP during start waits in the sequence instead of ending the process.
        let hangups: UnixSignalsSequence? =
            if reloadsOnHangup { await UnixSignalsSequence(trapping: .sighup) } else { nil }
        await manager.start()
        await withDiscardingTaskGroup { group in
            if let hangups {
                group.addTask {
                    for await _ in hangups.cancelOnGracefulShutdown() {
                        try? await manager.trigger(.reload, parameters: ["signal": Int(SIGHUP)])
                    }
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        await manager.terminate()
    }
}
