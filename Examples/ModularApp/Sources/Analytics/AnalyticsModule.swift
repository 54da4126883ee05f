import AnalyticsAnnotations
import AppServices
import BeeHive
import BeeHiveModules

/// An application-level module: starts last, subscribes to the cart event with a closure, flushes on SIGTERM.
public final class AnalyticsModule: HiveModule {
    public init() {}

    public func modSetUp(_ context: ModuleContext) throws {
        print("  [analytics] setUp (\(context.environment))")
    }

    /// SIGTERM or SIGINT: written as on iOS (`applicationWillTerminate:`), a synchronous named hook.
    public func modWillTerminate(_ context: ModuleContext) {
        print("  [analytics] willTerminate: flushing events")
    }

    public func modTearDown(_ context: ModuleContext) throws { print("  [analytics] tearDown") }
}
