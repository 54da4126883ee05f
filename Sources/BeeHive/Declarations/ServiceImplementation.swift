/// A type that implements a service and can be created from its name.
///
/// Annotation records and configuration files name implementations as strings; the hive finds
/// the type by that name when the service is first asked for, then creates instances with `init()`.
/// This is BeeHive's `BHServiceProtocol`: every requirement but `init()` has a default.
///
/// ```swift
/// public protocol UserTrackService { func track(_ event: String) }
///
/// final class UserTrackServiceImpl: UserTrackService, ServiceImplementation {
///     static var isSingleton: Bool { true }
///     init() {}
///     func track(_ event: String) { print(event) }
/// }
/// ```
public protocol ServiceImplementation: Sendable {
    /// Creates an instance. Called without any lock held: it may ask the hive for other services.
    init()

    /// Whether one shared instance serves every request (BeeHive's `+singleton`). Default: `false`.
    static var isSingleton: Bool { get }

    /// The shared instance to use when ``isSingleton`` is true (BeeHive's `+shareInstance`).
    /// Default: `nil`, and the hive creates one instance with `init()` and keeps it.
    static var sharedInstance: Self? { get }

    /// ``sharedInstance``, or a new instance when it is nil: how the hive makes the one instance of a singleton it
    /// found by name. Not for direct use; keep the default, which runs in the conforming module where `Self` is
    /// concrete (asked through a generic `Self`, the optional makes the runtime build `Optional<Self>`'s metadata, once
    /// per implementation type).
    static func _sharedOrNewInstance() -> Any
}

// MARK: - Default implementations

extension ServiceImplementation {
    public static var isSingleton: Bool { false }
    public static var sharedInstance: Self? { nil }

    @inlinable
    public static func _sharedOrNewInstance() -> Any { sharedInstance ?? Self() }
}
