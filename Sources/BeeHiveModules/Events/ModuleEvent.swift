import BeeHive

/// An event delivered to modules: BeeHive's lifecycle and system events, a Linux reload, or a custom event.
///
/// Values follow BeeHive's `BHModuleEventType`; custom events are 1000 and above.
///
/// ```swift
/// let cartChanged = try ModuleEvent.custom(1001)
/// manager.trigger(cartChanged, parameters: ["items": 3])
/// ```
public struct ModuleEvent: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The event's number.
    public let rawValue: Int

    /// Creates an event from its number; no range check (use ``custom(_:)`` for custom events).
    public init(rawValue: Int) { self.rawValue = rawValue }

    // MARK: Lifecycle

    /// Modules prepare themselves (BeeHive's `modSetUp`).
    public static let setUp = ModuleEvent(rawValue: 0)
    /// Modules start (BeeHive's `modInit`); async modules run it off the caller's thread.
    public static let initialize = ModuleEvent(rawValue: 1)
    /// Modules stop, in reverse order (BeeHive's `modTearDown`).
    public static let tearDown = ModuleEvent(rawValue: 2)
    /// After every module's init (BeeHive's `modSplash`).
    public static let splash = ModuleEvent(rawValue: 3)
    /// A module is being removed (BeeHive's `modUnmount`).
    public static let unmount = ModuleEvent(rawValue: 10)

    // MARK: BeeHive's system events

    public static let quickAction = ModuleEvent(rawValue: 4)
    public static let willResignActive = ModuleEvent(rawValue: 5)
    public static let didEnterBackground = ModuleEvent(rawValue: 6)
    public static let willEnterForeground = ModuleEvent(rawValue: 7)
    public static let didBecomeActive = ModuleEvent(rawValue: 8)
    /// The process is about to exit. On Linux: SIGTERM or SIGINT, followed by ``tearDown``.
    public static let willTerminate = ModuleEvent(rawValue: 9)
    public static let openURL = ModuleEvent(rawValue: 11)
    /// Memory is short. On Linux: pressure reported by `/proc/pressure/memory` or the cgroup's `memory.pressure`.
    public static let didReceiveMemoryWarning = ModuleEvent(rawValue: 12)
    public static let didFailToRegisterForRemoteNotifications = ModuleEvent(rawValue: 13)
    public static let didRegisterForRemoteNotifications = ModuleEvent(rawValue: 14)
    public static let didReceiveRemoteNotification = ModuleEvent(rawValue: 15)
    public static let didReceiveLocalNotification = ModuleEvent(rawValue: 16)
    public static let willPresentNotification = ModuleEvent(rawValue: 17)
    public static let didReceiveNotificationResponse = ModuleEvent(rawValue: 18)
    public static let willContinueUserActivity = ModuleEvent(rawValue: 19)
    public static let continueUserActivity = ModuleEvent(rawValue: 20)
    public static let didFailToContinueUserActivity = ModuleEvent(rawValue: 21)
    public static let didUpdateUserActivity = ModuleEvent(rawValue: 22)
    public static let handleWatchKitExtensionRequest = ModuleEvent(rawValue: 23)

    // MARK: Linux

    /// Configuration should be reloaded. On Linux: SIGHUP.
    public static let reload = ModuleEvent(rawValue: 100)

    // MARK: Custom

    /// The first custom event number (BeeHive's `BHMDidCustomEvent`).
    public static let firstCustomValue = 1000

    /// A custom event.
    /// - Parameter value: The event's number, at least ``firstCustomValue``.
    /// - Throws: ``HiveError/Code-swift.struct/invalidCustomEvent`` for a number below the custom range.
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
