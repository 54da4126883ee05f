import AppServices
import BeeHive
import BeeHiveModules
import HomeAnnotations

/// Calls the account module's service, handles the cart-changed custom event and reloads on SIGHUP.
public final class HomeModule: HiveModule {
    public init() {}
    public static var events: Set<ModuleEvent> { [ModuleEvent(rawValue: AppEvents.cartChanged)] }

    public func modInit(_ context: ModuleContext) throws {
        let account = try context.hive.createService(AccountService.self)
        print("  [home] init: welcome, \(account.currentUser)")
    }

    public func modSplash(_ context: ModuleContext) throws {
        let network = try context.hive.createService(NetworkService.self)
        print("  [home] splash: network online = \(network.isOnline)")
    }

    /// SIGHUP: reload the home feed's settings.
    public func modReload(_ context: ModuleContext) async throws {
        print("  [home] reload: settings reloaded")
    }

    public func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws {
        print("  [home] \(event): items = \(context.eventParameters["items"] ?? "-")")
    }

    public func modTearDown(_ context: ModuleContext) throws { print("  [home] tearDown") }
}
