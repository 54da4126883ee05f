import BeeHive

/// An event delivered to modules: BeeHive's lifecycle and system events, a Linux reload, or a custom event.
///
/// Values follow BeeHive's `BHModuleEventType`; custom events are 1000 and above.
///
/// ```swift
/// let cartChanged = try ModuleEvent.custom(1001)
/// try await manager.trigger(cartChanged, parameters: ["items": 3])
/// ```
public struct ModuleEvent: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The event's number.
    public let rawValue: Int

    /// Creates an event from its number; no range check (use ``custom(_:)`` for custom events).
    public init(rawValue: Int) { self.rawValue = rawValue }

    // MARK: Lifecycle

    /// Modules prepare themselves (BeeHive's `modSetUp`).
    public static let setUp = ModuleEvent(rawValue: 0)
    /// Modules start (BeeHive's `modInit`); modules declared async run it concurrently, as child tasks.
    public static let initialize = ModuleEvent(rawValue: 1)
    /// Modules stop, in reverse order (BeeHive's `modTearDown`).
    public static let tearDown = ModuleEvent(rawValue: 2)
    /// After every module's init (BeeHive's `modSplash`).
    public static let splash = ModuleEvent(rawValue: 3)
    /// A module is being removed (BeeHive's `modUnmount`).
    public static let unmount = ModuleEvent(rawValue: 10)

    // MARK: BeeHive's system events

    /// A home-screen quick action. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let quickAction = ModuleEvent(rawValue: 4)
    /// The app will become inactive. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let willResignActive = ModuleEvent(rawValue: 5)
    /// The app went to the background. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let didEnterBackground = ModuleEvent(rawValue: 6)
    /// The app will come to the foreground. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let willEnterForeground = ModuleEvent(rawValue: 7)
    /// The app became active. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let didBecomeActive = ModuleEvent(rawValue: 8)
    /// The process is about to exit. On Linux: SIGTERM or SIGINT, followed by ``tearDown``.
    /// Hook: ``HiveModule/modWillTerminate(_:)``.
    public static let willTerminate = ModuleEvent(rawValue: 9)
    /// The app was asked to open a URL. No Linux meaning (open URLs with BeeHiveRouter):
    /// ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let openURL = ModuleEvent(rawValue: 11)
    /// Memory is short. On Linux: pressure reported by `/proc/pressure/memory` or the cgroup's `memory.pressure`.
    /// Hook: ``HiveModule/modDidReceiveMemoryWarning(_:)``.
    public static let didReceiveMemoryWarning = ModuleEvent(rawValue: 12)
    /// APNs registration failed. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let didFailToRegisterForRemoteNotifications = ModuleEvent(rawValue: 13)
    /// APNs registration succeeded. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let didRegisterForRemoteNotifications = ModuleEvent(rawValue: 14)
    /// A remote notification arrived. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let didReceiveRemoteNotification = ModuleEvent(rawValue: 15)
    /// A local notification arrived. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let didReceiveLocalNotification = ModuleEvent(rawValue: 16)
    /// A notification will be presented. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let willPresentNotification = ModuleEvent(rawValue: 17)
    /// The user answered a notification. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let didReceiveNotificationResponse = ModuleEvent(rawValue: 18)
    /// Handoff will continue an activity. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let willContinueUserActivity = ModuleEvent(rawValue: 19)
    /// Handoff continues an activity. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let continueUserActivity = ModuleEvent(rawValue: 20)
    /// Handoff failed. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let didFailToContinueUserActivity = ModuleEvent(rawValue: 21)
    /// Handoff updated an activity. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let didUpdateUserActivity = ModuleEvent(rawValue: 22)
    /// A WatchKit extension request. No Linux meaning: ``ModuleManager/trigger(_:parameters:)`` rejects it.
    public static let handleWatchKitExtensionRequest = ModuleEvent(rawValue: 23)

    // MARK: Linux

    /// Configuration should be reloaded. On Linux: SIGHUP. Hook: ``HiveModule/modReload(_:)``.
    public static let reload = ModuleEvent(rawValue: 100)

    // MARK: Custom

    /// The first custom event number (BeeHive's `BHMDidCustomEvent`).
    public static let firstCustomValue = 1000

    /// A custom event.
    /// - Parameter value: The event's number, at least ``firstCustomValue``.
    /// - Throws: `HiveError.Code.invalidCustomEvent` for a number below the custom range.
    public static func custom(_ value: Int) throws(HiveError) -> ModuleEvent {
        guard value >= firstCustomValue else {
            throw HiveError(
                .invalidCustomEvent,
                "expected a custom event number of at least \(firstCustomValue); found \(value), which is "
                    + (known[value].map { "BeeHive's \($0) event" } ?? "reserved"))
        }
        return ModuleEvent(rawValue: value)
    }

    /// Whether this is a custom event.
    public var isCustom: Bool { rawValue >= Self.firstCustomValue }

    /// Whether this is one of the lifecycle events modules handle through their own hooks.
    public var isLifecycle: Bool { [0, 1, 2, 3, 10].contains(rawValue) }

    /// Whether the event means something on Linux. False for BeeHive's iOS application events (``quickAction``,
    /// ``willResignActive``, ``didEnterBackground``, ``willEnterForeground``, ``didBecomeActive``, ``openURL``, the
    /// remote and local notification events, the user-activity events and ``handleWatchKitExtensionRequest``):
    /// ``ModuleManager/trigger(_:parameters:)`` rejects them with `unsupportedEvent`. True for every other event,
    /// custom events included.
    ///
    /// ```swift
    /// ModuleEvent.willTerminate.hasLinuxMeaning        // true: SIGTERM, SIGINT
    /// ModuleEvent.didEnterBackground.hasLinuxMeaning   // false
    /// ```
    public var hasLinuxMeaning: Bool { Self.withoutLinuxMeaning[rawValue] == nil }

    /// Whether a module hook of its own exists for this event (besides the lifecycle hooks): willTerminate,
    /// didReceiveMemoryWarning and reload. A module without it gets ``HiveModule/modHandleEvent(_:_:)`` instead,
    /// if it lists the event.
    var hasNamedHook: Bool { self == .willTerminate || self == .didReceiveMemoryWarning || self == .reload }

    /// What the event is, for an event with no Linux meaning: the end of the `unsupportedEvent` messages.
    var linuxRejection: String? {
        Self.withoutLinuxMeaning[rawValue].map { "\(self), \($0) with no Linux counterpart" }
    }

    /// BeeHive's events that have no Linux meaning, and what they are on iOS.
    private static let withoutLinuxMeaning: [Int: String] = {
        var kinds: [Int: String] = [:]
        for value in [4, 5, 6, 7, 8, 11] { kinds[value] = "an iOS application event" }
        for value in 13...18 { kinds[value] = "an iOS notification event" }
        for value in 19...22 { kinds[value] = "an iOS user-activity (Handoff) event" }
        kinds[23] = "a WatchKit event"
        return kinds
    }()

    /// Orders events by number.
    ///
    /// ```swift
    /// [ModuleEvent.reload, .setUp].sorted()   // [setUp, reload]
    /// ```
    public static func < (a: ModuleEvent, b: ModuleEvent) -> Bool { a.rawValue < b.rawValue }

    private static let known: [Int: String] = [
        0: "setUp", 1: "initialize", 2: "tearDown", 3: "splash", 4: "quickAction", 5: "willResignActive",
        6: "didEnterBackground", 7: "willEnterForeground", 8: "didBecomeActive", 9: "willTerminate", 10: "unmount",
        11: "openURL", 12: "didReceiveMemoryWarning", 13: "didFailToRegisterForRemoteNotifications",
        14: "didRegisterForRemoteNotifications", 15: "didReceiveRemoteNotification", 16: "didReceiveLocalNotification",
        17: "willPresentNotification", 18: "didReceiveNotificationResponse", 19: "willContinueUserActivity",
        20: "continueUserActivity", 21: "didFailToContinueUserActivity", 22: "didUpdateUserActivity",
        23: "handleWatchKitExtensionRequest", 100: "reload",
    ]

    public var description: String { Self.known[rawValue] ?? (isCustom ? "custom(\(rawValue))" : "event(\(rawValue))") }
}
