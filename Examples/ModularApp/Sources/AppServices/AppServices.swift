/// The account service: who is signed in.
public protocol AccountService: AnyObject, Sendable {
    var currentUser: String { get }
}

/// The network service: whether the network module finished starting.
public protocol NetworkService: AnyObject, Sendable {
    var isOnline: Bool { get }
}

/// The settings service: the user's preferences (implemented by the Settings module, annotated in Swift).
public protocol SettingsService: AnyObject, Sendable {
    var theme: String { get }
}

/// Custom events the modules exchange.
public enum AppEvents {
    /// The cart changed; parameter "items": Int.
    public static let cartChanged = 1001
}
