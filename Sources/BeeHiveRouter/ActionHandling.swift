import BeeHive

/// An object that answers BeeHive service calls of the form `scheme://call.service/<Service>.<action>?k=v`.
///
/// A ``ServiceActionResolver`` maps the service name to such an object; the router then calls
/// ``handleAction(_:parameters:)`` with the action name and the URL's query items.
///
/// ```swift
/// struct CartService: ActionHandling {
///     func handleAction(_ action: String, parameters: RouteParameters) throws -> Any? {
///         switch action {
///         case "count": return 3
///         case "add": return try parameters.int("item")
///         default: throw RouterError.unknownAction(action, service: "Cart", available: ["count", "add"])
///         }
///     }
/// }
/// ```
public protocol ActionHandling {
    /// Performs a named action.
    ///
    /// - Parameters:
    ///   - action: The action name from the URL (the part after the last `.`).
    ///   - parameters: The URL's query items, percent-decoded.
    /// - Returns: The action's result, or `nil`.
    /// - Throws: Any error; ``RouterError/unknownAction(_:service:available:)`` for an unknown action.
    func handleAction(_ action: String, parameters: RouteParameters) throws -> Any?

    /// Whether the object handles an action, consulted by ``Router/canOpen(_:matching:)``.
    ///
    /// - Parameter action: The action name.
    /// - Returns: `true` when ``handleAction(_:parameters:)`` would handle it; the default says `true`.
    func canHandleAction(_ action: String) -> Bool
}

// MARK: - Default implementations

extension ActionHandling {
    /// Answers `true`: without more knowledge, every action is assumed to be handled.
    ///
    /// - Parameter action: The action name.
    /// - Returns: `true`.
    public func canHandleAction(_ action: String) -> Bool { true }
}
