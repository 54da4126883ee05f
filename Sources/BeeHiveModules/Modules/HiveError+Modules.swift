import BeeHive

// The module system's codes of `HiveError`: raised by `ModuleManager`, its events and the watchdog.
extension HiveError.Code {
    /// The type exists but does not conform to `HiveModule`.
    public static let notAModule = HiveError.Code("notAModule")
    /// No module of that name is registered.
    public static let moduleNotFound = HiveError.Code("moduleNotFound")
    /// A module's handler threw; the other modules still got the event.
    public static let moduleEventFailed = HiveError.Code("moduleEventFailed")
    /// A custom event number is below the custom range (1000).
    public static let invalidCustomEvent = HiveError.Code("invalidCustomEvent")
    /// A module launched by name has no entry point (`HiveModule.modLaunch(_:_:)`).
    public static let noEntryPoint = HiveError.Code("noEntryPoint")
    /// The watchdog found its queue blocked.
    public static let blockedQueue = HiveError.Code("blockedQueue")
    /// A module event with no meaning on Linux (an iOS application event such as `didEnterBackground`) was
    /// triggered (an error) or is listed in a module's `events` (a warning).
    ///
    /// ```swift
    /// do { try await manager.trigger(.didEnterBackground) } catch where error.code == .unsupportedEvent { … }
    /// ```
    public static let unsupportedEvent = HiveError.Code("unsupportedEvent")
}
