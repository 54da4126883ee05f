import BeeHive
import BeeHiveRouter
import Synchronization

// Types named by the annotation records in Tests/Annotations.

protocol GreetingService { func greet() -> String }
protocol GreetingService2 { func greet() -> String }
protocol CounterService: AnyObject { func next() -> Int }
protocol ClockService { var now: Int { get } }
protocol NestedService {}

final class EnglishGreeting: GreetingService, ServiceImplementation {
    init() {}
    func greet() -> String { "hello" }
}

final class FrenchGreeting: GreetingService, ServiceImplementation {
    init() {}
    func greet() -> String { "bonjour" }
}

final class SharedCounter: CounterService, ServiceImplementation, @unchecked Sendable {
    static var isSingleton: Bool { true }
    static let instancesCreated = Atomic<Int>(0)
    private let value = Atomic<Int>(0)
    init() { Self.instancesCreated.add(1, ordering: .relaxed) }
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}

/// A struct implementation: found by its name through the index of the loaded images' types.
struct ValueClock: ClockService, ServiceImplementation {
    init() {}
    var now: Int { 42 }
}

enum Outer {
    final class NestedImpl: NestedService, ServiceImplementation { init() {} }
}

/// Exists, but is not a ServiceImplementation.
final class PlainType {}

// Module and route types are only declared by records in these tests.

/// Identity of two instances. (`#expect(a === b)` on class-bound existentials crashes the 6.3 compiler.)
func same(_ a: AnyObject, _ b: AnyObject) -> Bool { a === b }

/// The handler of the annotated route `annotated://user/:id`.
struct UserRoute: RouteHandler {
    init() {}
    func handle(_ request: RouteRequest) throws -> Any? { "user \(try request.parameters.int("id"))" }
}
