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
}

// MARK: - Default implementations

extension ServiceImplementation {
    public static var isSingleton: Bool { false }
    public static var sharedInstance: Self? { nil }
}
