import BeeHive

/// A route handler written as a type, so that annotation records can name it (`BH_ROUTE("app://user/:id",
/// App.UserRoute)`) and the registry can register it with ``Router/register(pattern:handlerType:fileID:line:)``.
///
/// The router makes a fresh instance for every URL it dispatches to the type.
///
/// ```swift
/// struct UserRoute: RouteHandler {
///     func handle(_ request: RouteRequest) throws -> Any? {
///         UserScreen(id: try request.parameters.int("id"))
///     }
/// }
/// try router.register(pattern: "app://user/:id", handlerType: UserRoute.self)
/// ```
public protocol RouteHandler: SendableMetatype {
    /// Makes a handler; called once per dispatched URL.
    init()

    /// Handles an opened URL.
    ///
    /// - Parameter request: The URL, its parameters and the caller's user info.
    /// - Returns: The route's result (a screen, a service, a value), or `nil`.
    /// - Throws: Any error; it reaches the caller of ``Router/open(_:userInfo:completion:)``.
    func handle(_ request: RouteRequest) throws -> Any?
}
