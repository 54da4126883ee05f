import AccountAnnotations
import AppServices
import BeeHive
import BeeHiveModules

public final class AccountServiceImpl: AccountService, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public var currentUser: String { "ada" }
}

public final class AccountModule: HiveModule {
    public init() {}
    public func modSetUp(_ context: ModuleContext) throws { print("  [account] setUp: loading credentials") }
    public func modInit(_ context: ModuleContext) throws { print("  [account] init") }
    public func modTearDown(_ context: ModuleContext) throws { print("  [account] tearDown: closing session") }
}
