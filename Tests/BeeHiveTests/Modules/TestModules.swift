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

extension ModuleContext {
    /// Appends `entry` to the test's log, if the context carries one.
    func log(_ entry: String) { (customParameters["log"] as? EventLog)?.append(entry) }
}

/// A module that logs every lifecycle hook as "<Type>.<event>"; its hooks are synchronous.
/// `@unchecked Sendable`: a base class (not final) with no stored state, nor any in its subclasses.
class LoggingModule: HiveModule, @unchecked Sendable {
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

final class ModuleA: LoggingModule, @unchecked Sendable {}
final class ModuleB: LoggingModule, @unchecked Sendable {}
final class ModuleC: LoggingModule, @unchecked Sendable {}
final class ModuleD: LoggingModule, @unchecked Sendable {}
final class ModuleE: LoggingModule, @unchecked Sendable {}

/// Handles custom event 1001 and the reload event.
final class CustomSubscriber: LoggingModule, @unchecked Sendable {
    override class var events: Set<ModuleEvent> { [ModuleEvent(rawValue: 1001), .reload] }
}

/// Implements no hook at all.
final class SilentModule: HiveModule {
    static let created = Atomic<Int>(0)
    init() { Self.created.add(1, ordering: .relaxed) }
}

/// Implements no hook; declared twice by one test only, which counts its instances (a counter of its own, so that no
/// other test running in parallel creates one).
final class TwiceDeclaredModule: HiveModule {
    static let created = Atomic<Int>(0)
    init() { Self.created.add(1, ordering: .relaxed) }
}

/// Throws from init and from a custom event.
final class FailingModule: LoggingModule, @unchecked Sendable {
    struct Failure: Error {}
    override class var events: Set<ModuleEvent> { [ModuleEvent(rawValue: 1001)] }
    override func modInit(_ context: ModuleContext) throws { throw Failure() }
    override func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws { throw Failure() }
}

/// Its init is async and slow (100 ms); registered async, it runs as a child task. Logs setUp, init, splash.
final class SlowAsyncModule: HiveModule {
    init() {}
    func modSetUp(_ context: ModuleContext) { context.log("SlowAsyncModule.setUp") }
    func modInit(_ context: ModuleContext) async throws {
        try await Task.sleep(for: .milliseconds(100))
        context.log("SlowAsyncModule.init")
    }
    func modSplash(_ context: ModuleContext) { context.log("SlowAsyncModule.splash") }
}

/// FisherMan-style entry point.
final class LaunchableModule: HiveModule {
    init() {}
    func modLaunch(_ parameters: [String: any Sendable], _ context: ModuleContext) throws -> (any Sendable)? {
        "launched \(parameters["id"] ?? "nothing") in \(context.environment)"
    }
}

/// Changes its own copy of the context; the next module must not see it.
final class ContextMutatingModule: LoggingModule, @unchecked Sendable {
    override func modSetUp(_ context: ModuleContext) throws {
        var copy = context
        copy.customParameters["mutated"] = true
        copy.appKey = "changed"
        log("setUp", copy)
    }
}

final class ContextReadingModule: LoggingModule, @unchecked Sendable {
    override func modSetUp(_ context: ModuleContext) throws {
        log("setUp:\(context.customParameters["mutated"] == nil && context.appKey == "key"):\(context.event!)", context)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - Async hooks

/// Every hook is async: logs "<Type>.<event>-begin", sleeps `pause`, logs "<Type>.<event>-end". A hook that was not
/// awaited before the next module's would show up interleaved.
/// `@unchecked Sendable`: a base class (not final) with no stored state, nor any in its subclasses.
class PausingModule: HiveModule, @unchecked Sendable {
    required init() {}
    class var pause: Duration { .milliseconds(20) }

    func log(_ entry: String, _ context: ModuleContext) { context.log("\(type(of: self)).\(entry)") }

    func hook(_ event: String, _ context: ModuleContext) async throws {
        log("\(event)-begin", context)
        try await Task.sleep(for: Self.pause)
        log("\(event)-end", context)
    }

    func modSetUp(_ context: ModuleContext) async throws { try await hook("setUp", context) }
    func modInit(_ context: ModuleContext) async throws { try await hook("init", context) }
    func modSplash(_ context: ModuleContext) async throws { try await hook("splash", context) }
    func modTearDown(_ context: ModuleContext) async throws { try await hook("tearDown", context) }
    func modWillTerminate(_ context: ModuleContext) async throws { try await hook("willTerminate", context) }
}

/// The longest pause: if it were not awaited, the others would finish first.
final class PausingFirst: PausingModule, @unchecked Sendable {
    override class var pause: Duration { .milliseconds(60) }
}
final class PausingSecond: PausingModule, @unchecked Sendable {
    override class var pause: Duration { .milliseconds(30) }
}
final class PausingThird: PausingModule, @unchecked Sendable {
    override class var pause: Duration { .milliseconds(1) }
}

/// Counts the async inits that have begun; each waits until `expected` have, to prove they overlap. Inits that ran
/// one after the other would wait forever: a hang guard of 10 minutes (no deadline a healthy run comes near, however
/// loaded the machine) turns that into a failure.
final class Rendezvous: Sendable {
    let expected: Int
    private let arrived = Atomic<Int>(0)
    init(expected: Int) { self.expected = expected }

    /// Arrives and waits for the others; whether they all came.
    func meet() async -> Bool {
        arrived.add(1, ordering: .relaxed)
        let clock = ContinuousClock()
        let hangGuard = clock.now + .seconds(600)
        while arrived.load(ordering: .relaxed) < expected && clock.now < hangGuard {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return arrived.load(ordering: .relaxed) >= expected
    }
}

/// An async module whose init meets the other async modules' inits; logs "<Type>.init-overlapped=<Bool>".
/// `@unchecked Sendable`: a base class (not final) with no stored state, nor any in its subclasses.
class MeetingModule: HiveModule, @unchecked Sendable {
    required init() {}
    var name: String { "\(type(of: self))" }
    func modInit(_ context: ModuleContext) async throws {
        context.log("\(name).init-begin")
        let met = await (context.customParameters["rendezvous"] as? Rendezvous)?.meet() ?? false
        context.log("\(name).init-overlapped=\(met)")
        context.log("\(name).init")
    }
    func modSplash(_ context: ModuleContext) { context.log("\(name).splash") }
}
final class MeetingA: MeetingModule, @unchecked Sendable {}
final class MeetingB: MeetingModule, @unchecked Sendable {}

/// Its init takes 300 ms; it handles reload with the named hook.
final class LongInitModule: HiveModule {
    init() {}
    func modInit(_ context: ModuleContext) async throws {
        context.log("LongInitModule.init-begin")
        try await Task.sleep(for: .milliseconds(300))
        context.log("LongInitModule.init-end")
    }
    func modSplash(_ context: ModuleContext) { context.log("LongInitModule.splash") }
    func modReload(_ context: ModuleContext) async throws { context.log("LongInitModule.reload") }
}

// MARK: - Named hooks

/// Written as on iOS: a synchronous, non-throwing `modWillTerminate` (and the two other named hooks), no `events`.
final class IOSStyleModule: HiveModule {
    init() {}
    func modWillTerminate(_ context: ModuleContext) { context.log("IOSStyleModule.modWillTerminate") }
    func modDidReceiveMemoryWarning(_ context: ModuleContext) {
        context.log("IOSStyleModule.modDidReceiveMemoryWarning")
    }
    func modReload(_ context: ModuleContext) { context.log("IOSStyleModule.modReload") }
}

/// Lists the three events and handles them in `modHandleEvent` only (no named hook): the fallback.
final class HandleEventModule: LoggingModule, @unchecked Sendable {
    override class var events: Set<ModuleEvent> { [.willTerminate, .didReceiveMemoryWarning, .reload] }
}

/// Implements the named hook and also lists the event: the named hook only is called, once.
final class NamedAndListedModule: HiveModule {
    init() {}
    static var events: Set<ModuleEvent> { [.reload] }
    func modReload(_ context: ModuleContext) async throws { context.log("NamedAndListedModule.modReload") }
    func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) {
        context.log("NamedAndListedModule.modHandleEvent")
    }
}

/// Lists events with no Linux meaning, beside one that has one.
final class BackgroundListingModule: LoggingModule, @unchecked Sendable {
    override class var events: Set<ModuleEvent> { [.didEnterBackground, .openURL, .reload] }
}
