/// The account service: who is signed in.
public protocol AccountService: AnyObject, Sendable {
    var currentUser: String { get }
}

/// The network service: whether the network module finished starting.
public protocol NetworkService: AnyObject, Sendable {
    var isOnline: Bool { get }
}

/// Custom events the modules exchange.
public enum AppEvents {
    /// The cart changed; parameter "items": Int.
    public static let cartChanged = 1001
}
