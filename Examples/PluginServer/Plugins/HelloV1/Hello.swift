import BeeHiveMacros
import BeeHiveRouter
import PluginServerAPI

/// Version 1 of the hello feature's greeting service.
@BeeHiveService(PluginServerAPI.Greeting.self)
public final class Greeter: Greeting {
    public init() {}
    public func greet(_ name: String) -> String { "hello \(name), from v1" }
}

/// Version 1 of the hello feature's route: `GET /hello/<name>` reaches it through the server's catch-all route.
@BeeHiveRoute("app://hello/:name")
public struct HelloRoute: RouteHandler {
    public init() {}
    public func handle(_ request: RouteRequest) throws -> Any? {
        // Under a lease: an upgrade or a retire of this plugin waits until the greeting is made.
        try Hive.shared.withService(Greeting.self) { $0.greet(request.parameters["name"] ?? "nobody") }
    }
}

/// Version 1's second route: `GET /version`.
@BeeHiveRoute("app://version")
public struct VersionRoute: RouteHandler {
    public init() {}
    public func handle(_ request: RouteRequest) throws -> Any? { "hello plugin v1" }
}
