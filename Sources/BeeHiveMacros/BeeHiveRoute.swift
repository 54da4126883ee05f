#if Macros
/// Declares the annotated `RouteHandler` as the handler of a URL pattern, as `BH_ROUTE` does from C.
///
/// The compiler checks that the type is a `RouteHandler`.
///
/// ```swift
/// import BeeHiveMacros
/// import BeeHiveRouter
///
/// @BeeHiveRoute("app://user/:id")
/// struct UserRoute: RouteHandler {
///     func handle(_ request: RouteRequest) throws -> Any? { try request.parameters.int("id") }
/// }
/// ```
///
/// - Parameter pattern: The URL pattern, a string literal.
@attached(extension, names: arbitrary)
public macro BeeHiveRoute(_ pattern: String) = #externalMacro(module: "_BeeHiveMacrosPlugin", type: "RouteMacro")

/// Declares a handler type declared elsewhere as the handler of a URL pattern, at file scope or in a type's body.
///
/// ```swift
/// #BeeHiveRoute("app://user/:id", UserRoute.self)
/// ```
///
/// - Parameters:
///   - pattern: The URL pattern, a string literal.
///   - handler: The handler type; a dotted name starts with its module.
@freestanding(declaration)
public macro BeeHiveRoute<Handler>(_ pattern: String, _ handler: Handler.Type) =
    #externalMacro(module: "_BeeHiveMacrosPlugin", type: "RouteDeclarationMacro")
#endif
