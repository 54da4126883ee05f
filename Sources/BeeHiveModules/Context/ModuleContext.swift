import BeeHive

/// What a module is told with each event: the environment, settings, and the event with its
/// parameters. BeeHive's `BHContext`.
///
/// Each handler gets its own copy, so one module cannot change what the next one sees; ``config``
/// is shared on purpose.
public struct ModuleContext: Sendable {
    /// Where the program runs.
    public enum Environment: String, Sendable, Hashable, CaseIterable {
        case dev, test, stage, prod
    }

    /// Where the program runs. Default: from `BEEHIVE_ENV` (dev, test, stage, prod), else `dev`.
    public var environment: Environment
    /// The application's key, if it has one.
    public var appKey: String?
    /// The process's arguments (BeeHive's `launchOptions`).
    public var launchArguments: [String]
    /// The module file (BeeHive.plist or JSON) to load, if any.
    public var moduleConfigName: String?
    /// The service file (BHService.plist or JSON) to load, if any.
    public var serviceConfigName: String?
    /// Free-form values for modules.
    public var customParameters: [String: any Sendable]
    /// Settings shared by every module.
    public let config: HiveConfig
    /// The hive modules resolve services from.
    public internal(set) var hive: Hive

    /// The event being delivered.
    public internal(set) var event: ModuleEvent?
    /// The event's parameters (BeeHive's `customParam`).
    public internal(set) var eventParameters: [String: any Sendable] = [:]
    /// The name of the module receiving the event.
    public internal(set) var moduleName: String?

    /// Creates a context.
    public init(
        hive: Hive = .shared, environment: Environment? = nil, appKey: String? = nil,
        launchArguments: [String] = CommandLine.arguments, moduleConfigName: String? = nil,
        serviceConfigName: String? = nil, customParameters: [String: any Sendable] = [:],
        config: HiveConfig = HiveConfig()
    ) {
        self.hive = hive
        self.environment =
            environment ?? Environment(rawValue: EnvironmentVariable.environment.value?.lowercased() ?? "") ?? .dev
        self.appKey = appKey
        self.launchArguments = launchArguments
        self.moduleConfigName = moduleConfigName
        self.serviceConfigName = serviceConfigName
        self.customParameters = customParameters
        self.config = config
    }
}
