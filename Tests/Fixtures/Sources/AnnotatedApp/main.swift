// Prints, as JSON, what the shared hive registered from this executable's annotation records and
// how the services resolve. The implementation types are referenced nowhere but by name.
import BeeHive
import BeeHiveModules
import BeeHiveRouter
import FoundationEssentials
import Glibc
import Synchronization

protocol Greeter { func greet() -> String }
protocol Counter: AnyObject { func next() -> Int }
protocol Clock { var now: Int { get } }
protocol Storage { var kind: String { get } }

final class EnglishGreeter: Greeter, ServiceImplementation {
    init() {}
    func greet() -> String { "hello" }
}

final class FrenchGreeter: Greeter, ServiceImplementation {
    init() {}
    func greet() -> String { "bonjour" }
}

final class SharedCounter: Counter, ServiceImplementation {
    static var isSingleton: Bool { true }
    private let value = Atomic(0)
    init() {}
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}

// The modules and the route handler the records declare: validate() looks every one of them up.
public final class NetworkModule: HiveModule {
    public init() {}
}

public final class LoginModule: HiveModule {
    public init() {}
}

public struct UserRoute: RouteHandler {
    public init() {}
    public func handle(_ request: RouteRequest) throws -> Any? { "user \(request.parameters["id"] ?? "")" }
}

// Structs and enums named only by records must be public: release builds strip internal ones.
public struct ValueClock: Clock, ServiceImplementation {
    public init() {}
    var now: Int { 42 }
}

public enum Stores {
    public struct DiskStorage: Storage, ServiceImplementation {
        public init() {}
        var kind: String { "disk" }
    }
}

struct InternalClock: Clock, ServiceImplementation {
    init() {}
    var now: Int { 7 }
}

func attempt(_ body: () throws -> String) -> String {
    do { return try body() } catch { return "error: \(error)" }
}

// `--wait-for FILE`: prints `waiting=1`, then waits (at most 60 s) until FILE exists before the hive's first use, so that a test can replace
// this program's file after it was loaded and before its records are read.
if let index = CommandLine.arguments.firstIndex(of: "--wait-for"), index + 1 < CommandLine.arguments.count {
    let file = CommandLine.arguments[index + 1]
    print("waiting=1")
    fflush(nil)  // every output stream
    for _ in 0..<6000 where access(file, F_OK) != 0 { usleep(10_000) }
}

// `--report`: prints only the report of a hive with the default options (every section a note names), as JSON: what
// `beehive inspect --format report` says of this file.
if CommandLine.arguments.contains("--report") {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let report = Hive(options: .init(scansLoadedImages: true)).report()
    print(String(decoding: try encoder.encode(report), as: UTF8.self))
    exit(0)
}

// The shared hive takes the default sections only; fixture_internal is read by a hive of its own.
try Hive.bootstrap(.init(recordSections: ["beehive_services", "beehive_mods", "beehive_routes"]))
let hive = Hive.shared
let internalHive = Hive(options: .init(scansLoadedImages: true, recordSections: ["fixture_internal"]))
let registrations = hive.serviceRegistrations.filter { $0.source.imagePath != nil }
let counterA = attempt { "\(try hive.createService(Counter.self).next())" }
let counterB = attempt { "\(try hive.createService(Counter.self).next())" }
let sameCounter = attempt {
    "\(try hive.createService(Counter.self) === (try hive.createService(Counter.self)))"
}
let freshGreeters = attempt {
    let a = try hive.createService(Greeter.self) as AnyObject
    let b = try hive.createService(Greeter.self) as AnyObject
    return "\(a !== b)"
}
let stats = hive.scanStatistics
let results: [(String, String)] = [
    ("registrations", "\(registrations.count)"),
    ("services", registrations.map(\.service).sorted().joined(separator: ",")),
    ("sections", Set(registrations.compactMap(\.source.sectionName)).sorted().joined(separator: ",")),
    ("greet", attempt { try hive.createService(Greeter.self).greet() }),
    ("greetFrench", attempt { try hive.createService(Greeter.self, name: "french").greet() }),
    ("clock", attempt { "\(try hive.createService(Clock.self).now)" }),
    ("storage", attempt { try hive.createService(Storage.self).kind }),
    ("counter", "\(counterA),\(counterB)"),
    ("sameCounter", sameCounter),
    ("freshGreeters", freshGreeters),
    (
        "modules",
        hive.moduleDeclarations.map { "\($0.name):\($0.level.rawValue):\($0.priority):\($0.isAsync)" }.joined(
            separator: ",")
    ),
    ("routes", hive.routeDeclarations.map { "\($0.pattern)=\($0.handler)" }.joined(separator: ",")),
    ("diagnostics", "\(hive.diagnostics.count)"),
    (
        "validate",
        attempt {
            try hive.validate(); return "ok"
        }
    ),
    ("imagesLoaded", "\(stats?.imagesLoaded ?? -1)"),
    ("imagesOpened", "\(stats?.imagesOpened ?? -1)"),
    ("internalStruct", attempt { "\(try internalHive.createService(Clock.self).now)" }),
    ("scanMicroseconds", "\(Double(stats?.totalScanNanoseconds ?? 0) / 1000)"),
    ("startupWalkMicroseconds", "\(Double(stats?.firstScanNanoseconds ?? 0) / 1000)"),
    ("fileMicroseconds", "\(Double(stats?.openNanoseconds ?? 0) / 1000)"),
]
for (key, value) in results { print("\(key)=\(value)") }
