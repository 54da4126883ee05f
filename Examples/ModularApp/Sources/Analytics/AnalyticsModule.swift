import AnalyticsAnnotations
import AppServices
import BeeHive
import BeeHiveModules

/// An application-level module: starts last, subscribes to the cart event with a closure.
public final class AnalyticsModule: HiveModule {
    public init() {}
    public static var events: Set<ModuleEvent> { [.willTerminate] }

    public func modSetUp(_ context: ModuleContext) throws {
        print("  [analytics] setUp (\(context.environment))")
    }

    public func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws {
        print("  [analytics] \(event): flushing events")
    }

    public func modTearDown(_ context: ModuleContext) throws { print("  [analytics] tearDown") }
}
