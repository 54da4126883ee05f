// Prints what the shared hive registered from this executable's records (Swift macros and one C macro) and how
// each resolves, as key=value lines; with `--report`, only the shared hive's report as JSON, before anything is
// resolved: what `beehive inspect --format report` says of this file.
import BeeHive
import FoundationEssentials
import MacroServices

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

if CommandLine.arguments.contains("--report") {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(Hive.shared.report()), as: UTF8.self))
    exit(0)
}

func attempt(_ body: () throws -> String) -> String {
    do { return try body() } catch { return "error: \(error)" }
}

let hive = Hive.shared
let registrations = hive.serviceRegistrations.filter { $0.source.imagePath != nil }
let results: [(String, String)] = [
    ("registrations", "\(registrations.count)"),
    (
        "services",
        registrations.map { "\($0.service)=\($0.implementation)" + ($0.name.map { ":\($0)" } ?? "") }.sorted()
            .joined(separator: ",")
    ),
    ("greet", attempt { try hive.createService(Greeting.self).greet() }),
    ("greetFormal", attempt { try hive.createService(Greeting.self, name: "formal").greet() }),
    ("greetC", attempt { try hive.createService(Greeting.self, name: "c").greet() }),
    (
        "counter",
        attempt {
            "\(try hive.createService(Counter.self).next()),\(try hive.createService(Counter.self).next())"
        }
    ),
    ("storage", attempt { try hive.createService(Storage.self).kind }),
    ("nested", attempt { try hive.createService(Storage.self, name: "nested").kind }),
    ("clock", attempt { "\(try hive.createService(Clock.self).now)" }),
    ("clockFixed", attempt { "\(try hive.createService(Clock.self, name: "fixed").now)" }),
    ("clockFreestanding", attempt { "\(try hive.createService(Clock.self, name: "freestanding").now)" }),
    ("thermometer", attempt { "\(try hive.createService(ThermometerKey.self).celsius)" }),
    ("thermometerOutdoor", attempt { "\(try hive.createService(ThermometerKey.self, name: "outdoor").celsius)" }),
    ("thermometerByType", attempt { "\(try hive.createService(Thermometer.self).celsius)" }),
    (
        "thermometerShared",
        attempt {
            let byKey = try hive.createService(ThermometerKey.self)
            let byType = try hive.createService(Thermometer.self)
            return "\((byKey as AnyObject) === (byType as AnyObject))"
        }
    ),
    (
        "modules",
        hive.moduleDeclarations.map { "\($0.name):\($0.level.rawValue):\($0.priority):\($0.isAsync)" }
            .joined(separator: ",")
    ),
    ("routes", hive.routeDeclarations.map { "\($0.pattern)=\($0.handler)" }.joined(separator: ",")),
    ("diagnostics", "\(hive.diagnostics.count)"),
    ("diagnosticMessages", hive.diagnostics.map { "\($0)" }.joined(separator: " | ")),
    (
        "validate",
        attempt {
            try hive.validate(); return "ok"
        }
    ),
]
for (key, value) in results { print("\(key)=\(value)") }
