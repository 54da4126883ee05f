// beehive-demo: services announced by C annotation records, a BHService.plist and code, resolved
// through one hive. Run it with `Scripts/demo.sh`, or `swift run -c release beehive-demo`.
import BeeHive
import BeeHiveDemoServices
import Synchronization

// MARK: - Services (protocols) and implementations, named in Annotations/annotations.c

public protocol UserTrackService: AnyObject { func track(_ event: String) }
public protocol AccountService { func name(of id: Int) -> String? }
public protocol Greeter { func greet(_ name: String) -> String }
public protocol Clock { var description: String { get } }

/// A singleton is shared by every thread that resolves it, so implementations are `Sendable`: its state is
/// behind a mutex.
public final class ConsoleUserTracker: UserTrackService, ServiceImplementation {
    public static var isSingleton: Bool { true }
    private let events = Mutex<[String]>([])
    public init() {}
    public func track(_ event: String) {
        let count = events.withLock { events in
            events.append(event)
            return events.count
        }
        print("    tracked \"\(event)\" (\(count) so far in this singleton)")
    }
}

public final class SilentTracker: UserTrackService, ServiceImplementation {
    public init() {}
    public func track(_ event: String) {}
}

public struct InMemoryAccounts: AccountService, ServiceImplementation {
    public init() {}
    public func name(of id: Int) -> String? { [1: "Ada", 2: "Grace"][id] }
}

public struct FormalGreeter: Greeter, ServiceImplementation {
    public init() {}
    public func greet(_ name: String) -> String { "Good evening, \(name)." }
}

public struct CasualGreeter: Greeter, ServiceImplementation {
    public init() {}
    public func greet(_ name: String) -> String { "hey \(name)" }
}

struct SystemClock: Clock {
    var description: String { "monotonic clock" }
}

// MARK: - The demo

let hive = Hive.shared
print("1. Annotation records found before main, registered on first use of Hive.shared:")
for registration in hive.serviceRegistrations {
    print("    \(registration.displayName) -> \(registration.implementation)")
    print("      from \(registration.source)")
}
for module in hive.moduleDeclarations {
    print("    module \(module.name): level \(module.level), priority \(module.priority)")
}
if let stats = hive.scanStatistics {
    func micros(_ ns: UInt64) -> String { String(Double(ns / 100) / 10) }
    print(
        "    \(stats.imagesLoaded) loaded images: walked before main in \(micros(stats.firstScanNanoseconds)) µs; "
            + "\(stats.imagesWithRecords) had records, read at first use in \(micros(stats.openNanoseconds)) µs "
            + "(\(stats.imagesOpened) image files opened: record format 3 is read from memory)")
}

print("\n2. Resolving by protocol:")
do {
    let tracker = try hive.createService(UserTrackService.self)
    tracker.track("launch")
    try hive.createService(UserTrackService.self).track("open home")
    let accounts = try hive.createService(AccountService.self)
    let greeter = try hive.createService(Greeter.self, name: "formal")
    print("    " + greeter.greet(accounts.name(of: 1) ?? "stranger"))
} catch {
    print("    error: \(error)")
}

print("\n3. A BHService.plist and code register into the same hive:")
let config = CommandLine.arguments.dropFirst().first ?? "Examples/Demo/Config/BHService.plist"
do {
    try hive.loadServices(from: config)
    try hive.register(service: Clock.self, scope: .singleton) { _ in SystemClock() }
    print("    casual greeter from the plist: " + (try hive.createService(Greeter.self).greet("Linus")))
    print("    clock from code: \(try hive.createService(Clock.self).description)")
} catch {
    print("    error: \(error)")
}

print("\n4. Problems are values with sources (the plist's tracker lost to the annotated one):")
for diagnostic in hive.diagnostics { print("    \(diagnostic)") }
do {
    _ = try hive.createService(named: "BeeHiveDemo.PaymentService")
} catch {
    print("    \(error)")
}
