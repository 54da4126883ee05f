import BeeHive

/// A module: a small application with its own lifecycle, driven by events from a ``ModuleManager``.
/// BeeHive's `BHModuleProtocol`.
///
/// Every hook is optional. A module is called only for the lifecycle hooks it implements and for the
/// other events it lists in ``events``.
///
/// ```swift
/// public final class HomeModule: HiveModule {
///     public init() {}
///     public static var events: Set<ModuleEvent> { [.reload] }
///
///     public func modInit(_ context: ModuleContext) throws {
///         let accounts = try context.hive.createService(AccountService.self)
///         print("home for \(accounts.currentUser)")
///     }
///
///     public func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws {
///         print("reloading")
///     }
/// }
/// ```
///
/// Declare it with `BH_MODULE(App.HomeModule)` in C, an entry of `BeeHive.plist`, or
/// ``ModuleManager/register(_:level:priority:isAsync:triggersInit:fileID:line:)``.
public protocol HiveModule: AnyObject {
    /// Creates the module. Called once, without any lock held.
    init()

    /// The events other than the lifecycle hooks that ``modHandleEvent(_:_:)`` handles: BeeHive's system
    /// events, ``ModuleEvent/reload`` and custom events. Default: none.
    static var events: Set<ModuleEvent> { get }

    /// Prepares the module (BeeHive's `modSetUp:`).
    func modSetUp(_ context: ModuleContext) throws
    /// Starts the module (BeeHive's `modInit:`); off the caller's thread for async modules.
    func modInit(_ context: ModuleContext) throws
    /// Runs after every module's init (BeeHive's `modSplash:`).
    func modSplash(_ context: ModuleContext) throws
    /// Stops the module; modules tear down in reverse order (BeeHive's `modTearDown:`).
    func modTearDown(_ context: ModuleContext) throws
    /// The module is being removed (BeeHive's `modUnmount:`).
    func modUnmount(_ context: ModuleContext) throws
    /// Handles an event listed in ``events``. The context carries the event and its parameters.
    func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws
    /// The module's entry point, for FisherMan's "launch a module by name with parameters".
    /// - Returns: Whatever the module hands back, e.g. its root object.
    func modLaunch(_ parameters: [String: any Sendable], _ context: ModuleContext) throws -> (any Sendable)?
}

/// Thrown by the default hooks: the module does not implement this hook.
struct HookNotImplemented: Error {}

// MARK: - Default implementations

extension HiveModule {
    public static var events: Set<ModuleEvent> { [] }
    public func modSetUp(_ context: ModuleContext) throws { throw HookNotImplemented() }
    public func modInit(_ context: ModuleContext) throws { throw HookNotImplemented() }
    public func modSplash(_ context: ModuleContext) throws { throw HookNotImplemented() }
    public func modTearDown(_ context: ModuleContext) throws { throw HookNotImplemented() }
    public func modUnmount(_ context: ModuleContext) throws { throw HookNotImplemented() }
    public func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws { throw HookNotImplemented() }
    public func modLaunch(_ parameters: [String: any Sendable], _ context: ModuleContext) throws -> (any Sendable)? {
        throw HookNotImplemented()
    }
}
