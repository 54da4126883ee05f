import BeeHive
import BeeHiveModules
import BeeHiveRouter
import HotGreeterV2Records
import PluginAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Version 2 of the plugin's greeter: a singleton, so that the host can see BeeHive release it on retire.
public final class Greeter: GreeterService, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() { note("v2 greeter init") }
    deinit { note("v2 greeter deinit") }
    public func greet(_ name: String) -> String { "v2:\(name)" }
}

/// Version 2 of the plugin's route: answers with its version.
public struct GreetRoute: RouteHandler {
    public init() {}
    public func handle(_ request: RouteRequest) throws -> Any? { "v2:\(request.parameters["name"] ?? "")" }
}

/// Version 2 of the plugin's module: says which lifecycle events reach it.
public final class HotModule: HiveModule {
    public init() {}
    public func modSetUp(_ context: ModuleContext) async throws { note("v2 module setUp") }
    public func modInit(_ context: ModuleContext) async throws { note("v2 module init") }
    public func modSplash(_ context: ModuleContext) async throws { note("v2 module splash") }
    public func modTearDown(_ context: ModuleContext) async throws { note("v2 module tearDown") }
}

/// Writes a line the host's test reads (stdout, flushed at once so that it keeps its place among the host's).
func note(_ text: String) {
    print("note=\(text)")
    fflush(nil)
}
