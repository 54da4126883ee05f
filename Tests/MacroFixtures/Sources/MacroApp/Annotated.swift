import BeeHiveMacros
import BeeHiveModules
import BeeHiveRouter
import MacroServices
import Synchronization

public protocol Greeting: Sendable {
    func greet() -> String
}

protocol Counter: AnyObject, Sendable {
    func next() -> Int
}

protocol Storage: Sendable {
    var kind: String { get }
}

/// A public class: the macro adds its ServiceImplementation conformance.
@BeeHiveService(Greeting.self)
public final class PublicGreeter: Greeting {
    public init() {}
    public func greet() -> String { "hello" }
}

/// A named service.
@BeeHiveService(Greeting.self, name: "formal")
public final class FormalGreeter: Greeting {
    public init() {}
    public func greet() -> String { "good day" }
}

/// An internal class, a singleton that declares its conformance itself.
@BeeHiveService(Counter.self)
final class InternalCounter: Counter, ServiceImplementation {
    static var isSingleton: Bool { true }
    private let value = Atomic(0)
    init() {}
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}

/// An internal struct, named by nothing but its annotation: it must survive a release build.
@BeeHiveService(Storage.self)
struct InternalStorage: Storage {
    var kind: String { "internal struct" }
}

/// A nested type.
enum Stores {
    @BeeHiveService(Storage.self, name: "nested")
    struct NestedStorage: Storage {
        var kind: String { "nested struct" }
    }
}

/// An implementation of another module's service.
@BeeHiveService(MacroServices.Clock.self, name: "fixed")
struct FixedClock: Clock {
    var now: Int { 42 }
}

/// Another module's service with a key (`@BeeHiveServiceKey`), implemented here under a name: registered under the
/// key, which this module's record finds through the function beside the protocol.
@BeeHiveService(MacroServices.Thermometer.self, name: "outdoor")
struct OutdoorThermometer: Thermometer {
    var celsius: Int { -3 }
}

/// A type of another module, registered by the freestanding form.
#BeeHiveService(MacroServices.Clock.self, MacroServices.SystemClock.self, name: "freestanding")

/// A module.
@BeeHiveMod(level: .basic, priority: 100, async: true)
final class NetworkModule: HiveModule {
    init() {}
}

/// A route.
@BeeHiveRoute("app://user/:id")
struct UserRoute: RouteHandler {
    func handle(_ request: RouteRequest) throws -> Any? { "user \(request.parameters["id"] ?? "")" }
}

/// Named by the C record in MixedCAnnotations (public: nothing else keeps it in a release build).
public final class CAnnotatedGreeter: Greeting, ServiceImplementation {
    public init() {}
    public func greet() -> String { "hello from C" }
}
