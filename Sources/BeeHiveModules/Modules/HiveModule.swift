import BeeHive

/// A module: a small application with its own lifecycle, driven by events from a ``ModuleManager``.
/// BeeHive's `BHModuleProtocol`.
///
/// Every hook is optional and may be `async`: the manager awaits each one before it calls the next module
/// (see ``ModuleManager`` for the order). A synchronous hook (`func modInit(_ context: ModuleContext) throws`,
/// or without `throws`, as modules ported from iOS are written) satisfies the requirement too. A module is
/// called only for the hooks it implements and for the other events it lists in ``events``.
///
/// ```swift
/// public final class HomeModule: HiveModule {
///     public init() {}
///     public static var events: Set<ModuleEvent> { [try! .custom(1001)] }
///
///     public func modInit(_ context: ModuleContext) async throws {
///         let accounts = try context.hive.createService(AccountService.self)
///         try await accounts.signIn()
///     }
///
///     public func modReload(_ context: ModuleContext) async throws {   // SIGHUP
///         print("reloading")
///     }
///
///     public func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws {   // custom(1001)
///         print("cart changed")
///     }
/// }
/// ```
///
/// Declare it with `BH_MODULE(App.HomeModule)` in C, an entry of `BeeHive.plist`, or
/// ``ModuleManager/register(_:level:priority:isAsync:triggersInit:fileID:line:)``.
///
/// In a class hierarchy, implement in the base class every hook a subclass overrides: a hook that only a
/// subclass declares is not seen through the base class's conformance (Swift's rule for protocol requirements
/// with default implementations), so the default runs instead.
///
/// Modules are `Sendable`: their hooks run on whatever thread the manager's task runs on, and async modules'
/// inits run concurrently. Keep mutable state behind a lock (`Synchronization.Mutex`) or in an actor; a base
/// class that cannot be `final` declares `@unchecked Sendable`, with a comment that says why that is safe.
public protocol HiveModule: AnyObject, Sendable {
    /// Creates the module. Called once, without any lock held.
    init()

    /// The events that ``modHandleEvent(_:_:)`` handles: custom events, and the system events whose named hook
    /// (``modWillTerminate(_:)``, ``modDidReceiveMemoryWarning(_:)``, ``modReload(_:)``) the module does not
    /// implement. Default: none.
    ///
    /// Listing an event with no meaning on Linux (``ModuleEvent/hasLinuxMeaning``, e.g.
    /// ``ModuleEvent/didEnterBackground``) records one warning (`unsupportedEvent`) naming the module and the
    /// event when the manager first creates the module; such an event is never delivered.
    ///
    /// ```swift
    /// public static var events: Set<ModuleEvent> { [.willTerminate, try! .custom(1001)] }
    /// ```
    static var events: Set<ModuleEvent> { get }

    /// Prepares the module (BeeHive's `modSetUp:`).
    ///
    /// ```swift
    /// func modSetUp(_ context: ModuleContext) async throws { try await cache.open() }
    /// ```
    func modSetUp(_ context: ModuleContext) async throws
    /// Starts the module (BeeHive's `modInit:`). For a module declared async it runs as a child task,
    /// concurrently with the other inits; ``modSplash(_:)`` waits for every init.
    ///
    /// ```swift
    /// func modInit(_ context: ModuleContext) async throws { try await connection.connect() }
    /// ```
    func modInit(_ context: ModuleContext) async throws
    /// Runs once every module's init has finished (BeeHive's `modSplash:`).
    ///
    /// ```swift
    /// func modSplash(_ context: ModuleContext) async throws { await banner.show() }
    /// ```
    func modSplash(_ context: ModuleContext) async throws
    /// Stops the module; modules tear down in reverse order (BeeHive's `modTearDown:`).
    ///
    /// ```swift
    /// func modTearDown(_ context: ModuleContext) async throws { await connection.close() }
    /// ```
    func modTearDown(_ context: ModuleContext) async throws
    /// The module is being removed (BeeHive's `modUnmount:`).
    ///
    /// ```swift
    /// func modUnmount(_ context: ModuleContext) async throws { await cache.delete() }
    /// ```
    func modUnmount(_ context: ModuleContext) async throws
    /// The process is about to exit: SIGTERM or SIGINT, or ``ModuleManager/terminate(parameters:)``
    /// (BeeHive's `applicationWillTerminate:`). ``modTearDown(_:)`` follows, in reverse order.
    ///
    /// Without it, a module that lists ``ModuleEvent/willTerminate`` in ``events`` gets ``modHandleEvent(_:_:)``.
    ///
    /// ```swift
    /// func modWillTerminate(_ context: ModuleContext) { journal.flush() }   // as written for iOS: still called
    /// ```
    func modWillTerminate(_ context: ModuleContext) async throws
    /// Memory is short: pressure reported by `/proc/pressure/memory` or the cgroup's `memory.pressure`
    /// (BeeHive's `applicationDidReceiveMemoryWarning:`).
    ///
    /// Without it, a module that lists ``ModuleEvent/didReceiveMemoryWarning`` in ``events`` gets
    /// ``modHandleEvent(_:_:)``.
    ///
    /// ```swift
    /// func modDidReceiveMemoryWarning(_ context: ModuleContext) async throws { await imageCache.purge() }
    /// ```
    func modDidReceiveMemoryWarning(_ context: ModuleContext) async throws
    /// Configuration should be reloaded: SIGHUP (an event of this port; BeeHive has none).
    ///
    /// Without it, a module that lists ``ModuleEvent/reload`` in ``events`` gets ``modHandleEvent(_:_:)``.
    ///
    /// ```swift
    /// func modReload(_ context: ModuleContext) async throws { settings = try await Settings.load() }
    /// ```
    func modReload(_ context: ModuleContext) async throws
    /// Handles an event listed in ``events``. The context carries the event and its parameters.
    ///
    /// ```swift
    /// func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) async throws {
    ///     if event == cartChanged { await badge.update(context.eventParameters["items"]) }
    /// }
    /// ```
    func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) async throws
    /// The module's entry point, for FisherMan's "launch a module by name with parameters".
    ///
    /// ```swift
    /// func modLaunch(_ parameters: [String: any Sendable], _ context: ModuleContext) async throws -> (any Sendable)? {
    ///     try await Order.load(id: parameters["orderID"] as? Int ?? 0)
    /// }
    /// ```
    /// - Returns: Whatever the module hands back, e.g. its root object.
    func modLaunch(_ parameters: [String: any Sendable], _ context: ModuleContext) async throws -> (any Sendable)?
}

/// Thrown by the default hooks: the module does not implement this hook. The manager remembers it per module
/// type and hook, and stops calling that hook.
struct HookNotImplemented: Error {}

// MARK: - Default implementations

extension HiveModule {
    /// No events: the module gets its lifecycle hooks only.
    ///
    /// ```swift
    /// final class Quiet: HiveModule { init() {} }   // Quiet.events == []
    /// ```
    public static var events: Set<ModuleEvent> { [] }
    /// Not implemented: the manager stops calling it for this type.
    ///
    /// ```swift
    /// func modSetUp(_ context: ModuleContext) async throws { /* implement to be called */ }
    /// ```
    public func modSetUp(_ context: ModuleContext) async throws { throw HookNotImplemented() }
    /// Not implemented: the manager stops calling it for this type.
    ///
    /// ```swift
    /// func modInit(_ context: ModuleContext) async throws { /* implement to be called */ }
    /// ```
    public func modInit(_ context: ModuleContext) async throws { throw HookNotImplemented() }
    /// Not implemented: the manager stops calling it for this type.
    ///
    /// ```swift
    /// func modSplash(_ context: ModuleContext) async throws { /* implement to be called */ }
    /// ```
    public func modSplash(_ context: ModuleContext) async throws { throw HookNotImplemented() }
    /// Not implemented: the manager stops calling it for this type.
    ///
    /// ```swift
    /// func modTearDown(_ context: ModuleContext) async throws { /* implement to be called */ }
    /// ```
    public func modTearDown(_ context: ModuleContext) async throws { throw HookNotImplemented() }
    /// Not implemented: the manager stops calling it for this type.
    ///
    /// ```swift
    /// func modUnmount(_ context: ModuleContext) async throws { /* implement to be called */ }
    /// ```
    public func modUnmount(_ context: ModuleContext) async throws { throw HookNotImplemented() }
    /// Not implemented: the manager calls ``modHandleEvent(_:_:)`` instead if ``events`` lists
    /// ``ModuleEvent/willTerminate``.
    ///
    /// ```swift
    /// func modWillTerminate(_ context: ModuleContext) async throws { /* implement to be called */ }
    /// ```
    public func modWillTerminate(_ context: ModuleContext) async throws { throw HookNotImplemented() }
    /// Not implemented: the manager calls ``modHandleEvent(_:_:)`` instead if ``events`` lists
    /// ``ModuleEvent/didReceiveMemoryWarning``.
    ///
    /// ```swift
    /// func modDidReceiveMemoryWarning(_ context: ModuleContext) async throws { /* implement to be called */ }
    /// ```
    public func modDidReceiveMemoryWarning(_ context: ModuleContext) async throws { throw HookNotImplemented() }
    /// Not implemented: the manager calls ``modHandleEvent(_:_:)`` instead if ``events`` lists
    /// ``ModuleEvent/reload``.
    ///
    /// ```swift
    /// func modReload(_ context: ModuleContext) async throws { /* implement to be called */ }
    /// ```
    public func modReload(_ context: ModuleContext) async throws { throw HookNotImplemented() }
    /// Not implemented: the manager stops calling it for this type.
    ///
    /// ```swift
    /// func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) async throws { /* implement */ }
    /// ```
    public func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) async throws {
        throw HookNotImplemented()
    }
    /// Not implemented: ``ModuleManager/launch(moduleNamed:parameters:)`` throws `noEntryPoint`.
    ///
    /// ```swift
    /// func modLaunch(_ p: [String: any Sendable], _ c: ModuleContext) async throws -> (any Sendable)? { nil }
    /// ```
    public func modLaunch(
        _ parameters: [String: any Sendable], _ context: ModuleContext
    ) async throws -> (any Sendable)? {
        throw HookNotImplemented()
    }
}
