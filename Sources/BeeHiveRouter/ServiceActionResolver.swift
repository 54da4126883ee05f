import BeeHive

/// Finds the object that handles service calls for a service name (`Cart` in
/// `app://call.service/Cart.count`); plug the service registry in here.
///
/// ```swift
/// router.setServiceResolver(ServiceActionResolver { name in registry.actionHandler(named: name) })
/// // or, in tests:
/// router.setServiceResolver(.dictionary(["Cart": CartService()]))
/// ```
public struct ServiceActionResolver: Sendable {
    private let body: @Sendable (String) throws -> (any ActionHandling)?

    /// Makes a resolver from a closure.
    ///
    /// - Parameter resolve: Returns the handler for a service name, or `nil` when there is no such service.
    ///   It runs without any router lock held, so it may use the router or the registry.
    public init(_ resolve: @escaping @Sendable (_ serviceName: String) throws -> (any ActionHandling)?) {
        body = resolve
    }

    /// Makes a resolver backed by a fixed dictionary.
    ///
    /// - Parameter handlers: The handlers by service name.
    /// - Returns: A resolver that looks names up in `handlers`.
    public static func dictionary(_ handlers: [String: any ActionHandling & Sendable]) -> ServiceActionResolver {
        ServiceActionResolver { name in handlers[name] }
    }

    /// Finds the handler for a service name.
    ///
    /// - Parameter serviceName: The name from the URL, for example `Cart` or `App.CartService`.
    /// - Returns: The handler, or `nil`.
    /// - Throws: Whatever the resolving closure throws.
    public func resolve(_ serviceName: String) throws -> (any ActionHandling)? {
        try body(serviceName)
    }
}
