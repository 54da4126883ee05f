import BeeHive
import Swinject

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The ways to register a tier's N services (and the floor, which no registry beats).
public enum Mechanism: String, CaseIterable, Sendable {
    /// (a) Annotation records: scan the loaded images, parse the tier's section, register.
    case annotations
    /// (b) BeeHive's BHService.plist (XML), read and registered.
    case plist
    /// (c) The same list as JSON, read and registered.
    case json
    /// (d) Explicit `register(service:impl:)` calls in code.
    case explicit
    /// (d') Explicit typed factories in code, `register(Service.self) { _ in Impl() }`: checked by the compiler.
    case explicitTyped = "explicit-typed"
    /// (e) Swinject: `register` calls on a new `Container`.
    case swinject
    /// The floor: N inserts of the tier's existing name strings into a `[String: String]` with capacity reserved.
    case floor
}

/// The floor of registration: the tier's pairs inserted into a reserved dictionary. The strings exist before.
/// - Parameter pairs: The (service, implementation) names, built before the measurement.
/// - Returns: The table, for the caller to count after the measurement.
@inline(never)
public func buildFloor(_ pairs: [(service: String, impl: String)]) -> [String: String] {
    var table: [String: String] = [:]
    table.reserveCapacity(pairs.count)
    for pair in pairs { table[pair.service] = pair.impl }
    return table
}

/// Builds a hive holding the tier's services with one of the BeeHive mechanisms (a)–(d).
public func buildHive(_ mechanism: Mechanism, _ tier: Tier) -> Hive {
    do {
        switch mechanism {
        case .annotations:
            return Hive(options: .init(scansLoadedImages: true, recordSections: [tier.recordSection]))
        case .plist:
            let hive = Hive()
            try hive.loadServices(from: tier.plistPath)
            return hive
        case .json:
            let hive = Hive()
            try hive.loadServices(from: tier.jsonPath)
            return hive
        case .explicit:
            let hive = Hive()
            try tier.registerExplicitly(hive)
            return hive
        case .explicitTyped:
            let hive = Hive()
            try tier.registerTyped(hive)
            return hive
        case .swinject, .floor:
            preconditionFailure("\(mechanism.rawValue) builds no Hive")
        }
    } catch {
        fatalError("register/\(mechanism.rawValue)/\(tier.count): \(error)")
    }
}

/// Services expected beyond N: 0, except in the smoke run's check that a short registry stops the run
/// (`BEEHIVE_BENCH_EXPECT_EXTRA=1` makes every registry one service short).
let expectedExtra: Int = {
    guard let text = getenv("BEEHIVE_BENCH_EXPECT_EXTRA") else { return 0 }
    return Int(String(cString: text)) ?? 0
}()

/// Why a registry of `registered` services is not the tier's, or nil when it holds exactly N.
public func countProblem(_ registered: Int, of tier: Tier, _ name: String) -> String? {
    let expected = tier.count + expectedExtra
    guard registered != expected else { return nil }
    return "\(name): the mechanism registered \(registered) services; expected \(expected). No time reported."
}

/// Stops the process unless exactly the tier's N services were registered.
public func requireCount(_ registered: Int, of tier: Tier, _ name: String) {
    if let problem = countProblem(registered, of: tier, name) { fatalError(problem) }
}

/// Checks, once before sampling, that the mechanism registers exactly the tier's set: the same
/// (service, implementation) names as every other mechanism, with implementations that resolve.
public func verifySameSet(_ mechanism: Mechanism, _ tier: Tier, _ name: String) throws {
    if mechanism == .floor {
        requireCount(buildFloor(tier.expectedPairs).count, of: tier, name)
        return
    }
    if mechanism == .swinject {
        let container = Container()
        tier.registerInSwinject(container)
        requireCount(tier.swinjectResolvedCount(container), of: tier, name)
        return
    }
    let hive = buildHive(mechanism, tier)
    // Typed factories name no implementation type ("factory"): compare the services alone.
    let typed = mechanism == .explicitTyped
    let registered = hive.serviceRegistrations.map { typed ? $0.service : "\($0.service) -> \($0.implementation)" }
        .sorted()
    let expected = tier.expectedPairs.map { typed ? $0.service : "\($0.service) -> \($0.impl)" }.sorted()
    guard registered == expected else {
        let missing = Set(expected).subtracting(registered).sorted().prefix(5)
        let extra = Set(registered).subtracting(expected).sorted().prefix(5)
        fatalError(
            "\(name): expected the tier's \(expected.count) services; found \(registered.count). "
                + "Missing: \(Array(missing)); unexpected: \(Array(extra))")
    }
    let errors = hive.diagnostics.filter { $0.severity == .error }
    guard errors.isEmpty else { fatalError("\(name): registration reported errors: \(errors)") }
    // Implementations named by records and files are looked up on first use: check that every service resolves,
    // by type and by name, to its implementation (the tier's generated check).
    let wrong = tier.misresolvedServices(hive)
    guard wrong.isEmpty else { fatalError("\(name): \(wrong.count) services resolve wrong: \(wrong.prefix(5))") }
}
