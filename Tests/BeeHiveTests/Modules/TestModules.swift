import Synchronization

@testable import BeeHive
@testable import BeeHiveModules

/// Collects what modules saw, in order; handed to modules through the context.
final class EventLog: Sendable {
    private let entries = LockedValue<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
    func events(_ event: String) -> [String] {
        all.filter { $0.hasSuffix(".\(event)") }.map { String($0.split(separator: ".")[0]) }
    }
}

/// A module that logs every lifecycle hook as "<Type>.<event>".
class LoggingModule: HiveModule {
    required init() {}
    class var events: Set<ModuleEvent> { [] }

    func log(_ event: String, _ context: ModuleContext) {
        (context.customParameters["log"] as? EventLog)?.append("\(type(of: self)).\(event)")
    }

    func modSetUp(_ context: ModuleContext) throws { log("setUp", context) }
    func modInit(_ context: ModuleContext) throws { log("init", context) }
    func modSplash(_ context: ModuleContext) throws { log("splash", context) }
    func modTearDown(_ context: ModuleContext) throws { log("tearDown", context) }
    func modUnmount(_ context: ModuleContext) throws { log("unmount", context) }
    func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws {
        let value = context.eventParameters["value"].map { "=\($0)" } ?? ""
        log("\(event)\(value)", context)
    }
}

final class ModuleA: LoggingModule {}
final class ModuleB: LoggingModule {}
final class ModuleC: LoggingModule {}
final class ModuleD: LoggingModule {}
final class ModuleE: LoggingModule {}

/// Handles custom event 1001 and the reload event.
final class CustomSubscriber: LoggingModule {
    override class var events: Set<ModuleEvent> { [ModuleEvent(rawValue: 1001), .reload] }
}

/// Implements no hook at all.
final class SilentModule: HiveModule {
    static let created = Atomic<Int>(0)
    init() { Self.created.add(1, ordering: .relaxed) }
}

/// Throws from init and from a custom event.
final class FailingModule: LoggingModule {
    struct Failure: Error {}
    override class var events: Set<ModuleEvent> { [ModuleEvent(rawValue: 1001)] }
    override func modInit(_ context: ModuleContext) throws { throw Failure() }
    override func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws { throw Failure() }
}

/// Runs init off the caller's thread, slowly.
final class SlowAsyncModule: LoggingModule {
    override func modInit(_ context: ModuleContext) throws {
        usleep(100_000)
        log("init", context)
    }
}

/// FisherMan-style entry point.
final class LaunchableModule: HiveModule {
    init() {}
    func modLaunch(_ parameters: [String: any Sendable], _ context: ModuleContext) throws -> (any Sendable)? {
        "launched \(parameters["id"] ?? "nothing") in \(context.environment)"
    }
}

/// Changes its own copy of the context; the next module must not see it.
final class ContextMutatingModule: LoggingModule {
    override func modSetUp(_ context: ModuleContext) throws {
        var copy = context
        copy.customParameters["mutated"] = true
        copy.appKey = "changed"
        log("setUp", copy)
    }
}

final class ContextReadingModule: LoggingModule {
    override func modSetUp(_ context: ModuleContext) throws {
        log("setUp:\(context.customParameters["mutated"] == nil && context.appKey == "key"):\(context.event!)", context)
    }
}

#if canImport(Glibc)
import Glibc
#endif
