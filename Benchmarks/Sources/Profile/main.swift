import BeeHive
import RegistrationKit
import Swinject

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Builds one mechanism's registry K times, for instruction counts under valgrind: the difference of
// two runs (K and 0) divided by K is the cost of one registration, free of process startup. This VM
// has no hardware performance counters, so package-benchmark cannot report instructions here.
// `resolve-singleton`, `resolve-transient` and `resolve-by-name` resolve K times instead, from a hive
// holding the tier, to count allocations per resolution independently of package-benchmark
// (valgrind --tool=memcheck prints the process's total allocations).
//
//   valgrind --tool=callgrind Profile explicit 1000 20
//   valgrind --tool=memcheck Profile resolve-singleton 1000 10000

let mechanismNames = Mechanism.allCases.map(\.rawValue).joined(separator: ", ")
let usage =
    "usage: Profile MECHANISM N K   (MECHANISM: \(mechanismNames), "
    + "empty, resolve-singleton, resolve-transient or resolve-by-name; N: a compiled tier ("
    + compiledTiers.map { String($0.count) }.joined(separator: ", ") + "); K >= 0)"

func fail(_ message: String) -> Never {
    let text = "Profile: \(message)\n\(usage)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("expected 3 arguments; found \(arguments.count - 1)") }
let mechanismName = arguments[1]
guard let n = Int(arguments[2]), n > 0 else { fail("expected N > 0; found '\(arguments[2])'") }
guard let repetitions = Int(arguments[3]), repetitions >= 0 else { fail("expected K >= 0; found '\(arguments[3])'") }
guard let tier = compiledTiers.first(where: { $0.count == n }) else { fail("tier \(n) is not compiled in") }

/// The service of the singleton resolutions.
public protocol ProfiledSingleton: AnyObject {}
/// Its implementation: one shared instance.
public final class ProfiledSingletonImpl: ProfiledSingleton, ServiceImplementation {
    /// One instance serves every request.
    public static var isSingleton: Bool { true }
    /// Creates the instance.
    public init() {}
}
/// The service of the new-instance resolutions.
public protocol ProfiledTransient: AnyObject {}
/// Its implementation: a new instance per request.
public final class ProfiledTransientImpl: ProfiledTransient, ServiceImplementation {
    /// Creates an instance.
    public init() {}
}

if mechanismName.hasPrefix("resolve-") {
    let hive = buildHive(.explicit, tier)
    do {
        try hive.register(service: ProfiledSingleton.self, impl: ProfiledSingletonImpl.self)
        try hive.register(service: ProfiledTransient.self, impl: ProfiledTransientImpl.self)
        let name = String(reflecting: ProfiledSingleton.self)
        let resolve: () throws(HiveError) -> AnyObject
        switch mechanismName {
        case "resolve-singleton": resolve = { () throws(HiveError) in try hive.createService(ProfiledSingleton.self) }
        case "resolve-transient": resolve = { () throws(HiveError) in try hive.createService(ProfiledTransient.self) }
        case "resolve-by-name": resolve = { () throws(HiveError) in try hive.createService(named: name) as AnyObject }
        default: fail("unknown mechanism '\(mechanismName)'")
        }
        // Twice outside the counted part: the first creates the singleton and fills the type index.
        _ = try resolve()
        _ = try resolve()
        for _ in 0..<repetitions { _ = try resolve() }
    } catch {
        fail("\(error)")
    }
    print("Profile: \(mechanismName) N=\(n) x\(repetitions)")
    exit(0)
}

/// The floor's dictionary, kept like the registries.
final class FloorTable {
    let table: [String: String]
    init(_ table: [String: String]) { self.table = table }
}

func build(_ name: String) -> AnyObject {
    if name == "empty" { return Hive() }
    guard let mechanism = Mechanism(rawValue: name) else { fail("unknown mechanism '\(name)'") }
    if mechanism == .floor { return FloorTable(buildFloor(tier.expectedPairs)) }
    if mechanism == .swinject {
        let container = Container()
        tier.registerInSwinject(container)
        return container
    }
    return buildHive(mechanism, tier)
}

// Once outside the counted part, checked: the first use loads code and fills caches.
let first = build(mechanismName)
if let hive = first as? Hive, mechanismName != "empty" {
    requireCount(hive.serviceRegistrations.count, of: tier, "Profile \(mechanismName) \(n)")
} else if let floor = first as? FloorTable {
    requireCount(floor.table.count, of: tier, "Profile \(mechanismName) \(n)")
} else if let container = first as? Container {
    requireCount(tier.swinjectResolvedCount(container), of: tier, "Profile \(mechanismName) \(n)")
}
// The registries are kept and the process exits without releasing them: teardown is not counted.
var kept: [AnyObject] = []
kept.reserveCapacity(repetitions)
for _ in 0..<repetitions { kept.append(build(mechanismName)) }
print("Profile: \(mechanismName) N=\(n) x\(repetitions)")
exit(0)
