import AppServices
import BeeHiveMacros
import BeeHiveModules

/// A module annotated in Swift only: `@BeeHiveMod` and `@BeeHiveService` write the same records as the C macros of
/// the other four modules, and this target needs no C target beside it.
@BeeHiveMod(level: .normal, priority: 5)
public final class SettingsModule: HiveModule {
    public init() {}

    public func modSetUp(_ context: ModuleContext) throws {
        print("  [settings] setUp: theme \(UserSettings().theme)")
    }

    public func modTearDown(_ context: ModuleContext) throws { print("  [settings] tearDown") }
}

/// The settings service, annotated in Swift; the macro adds its `ServiceImplementation` conformance. The protocol is
/// another module's, so its name starts with that module (the compiler checks it).
@BeeHiveService(AppServices.SettingsService.self)
final class UserSettings: SettingsService {
    init() {}
    var theme: String { "dark" }
}
