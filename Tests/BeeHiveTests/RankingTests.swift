import BeeHiveTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import BeeHive

/// The service that code, files and plugins of these tests register with ranks and properties.
protocol PriceService: Sendable {
    var label: String { get }
}

struct StandardPrices: PriceService, ServiceImplementation {
    var label: String { "standard" }
    init() {}
}

struct EuropeanPrices: PriceService, ServiceImplementation {
    var label: String { "eu" }
    init() {}
}

struct AmericanPrices: PriceService, ServiceImplementation {
    var label: String { "us" }
    init() {}
}

/// A service that nothing registers.
protocol UnregisteredPrices: Sendable {}

/// A factory's instance, labelled by the test.
struct LabelledPrices: PriceService {
    let label: String
}

/// Ranks and properties: the highest rank serves, the next takes over when it leaves, and equal ranks are
/// duplicates as before ranks existed.
@Suite("Ranks and properties: the highest rank serves, the next takes over, properties select", .serialized)
struct RankingTests {
    @Test("the registrations keep their keys' first places: a higher rank and a reinstated one take the place over")
    func registrationOrder() {
        var state = RegistryState()
        let image = { (id: UInt64) in
            RegistrationSource.annotation(image: "/lib\(id).so", section: "s", offset: 0, imageID: id)
        }
        func add(_ service: String, _ implementation: String, _ source: RegistrationSource, rank: Int = 0) {
            _ = state.add(
                ServiceEntry(
                    ServiceRegistration(service: service, implementation: implementation, source: source, rank: rank),
                    .typeName(implementation)))
        }
        func order() -> [String] {
            state.serviceOrder.map { "\($0.registration.service)=\($0.registration.implementation)" }
        }
        add("App.A", "A1", image(1))
        add("App.B", "B1", image(1))
        add("App.C", "C2", image(2))
        add("App.A", "A2", image(2), rank: 5)  // outranks A1: takes A's place
        add("App.B", "B3", image(3))  // waits behind B1
        #expect(order() == ["App.A=A2", "App.B=B1", "App.C=C2"])
        _ = state.withdraw(image: 1, reason: "unloaded")  // B3 is reinstated in B's place; A2 stays
        #expect(order() == ["App.A=A2", "App.B=B3", "App.C=C2"])
        _ = state.withdraw(image: 2, reason: "unloaded")  // A and C go: nothing waits for them
        #expect(order() == ["App.B=B3"])
        #expect(state.serviceOrder.enumerated().allSatisfy { $0.element.orderIndex == $0.offset })
        add("App.A", "A4", image(4))  // a key served again comes last
        #expect(order() == ["App.B=B3", "App.A=A4"])
        #expect(state.serviceOrder.map(\.orderIndex) == [0, 1])
    }

    static func labels(_ services: [any PriceService]) -> [String] { services.map(\.label) }

    static func duplicates(in hive: Hive) -> [Diagnostic] {
        hive.diagnostics.filter { $0.error.code == .duplicateRegistration }
    }

    @Test("in code: the highest rank serves whatever the order; a lower rank is an alternative, not a duplicate")
    func codeRanks() throws {
        let hive = Hive()
        try hive.register(PriceService.self, rank: 0) { _ in LabelledPrices(label: "standard") }
        try hive.register(PriceService.self, rank: 10, properties: ["tier": "gold"]) { _ in
            LabelledPrices(label: "gold")
        }
        try hive.register(PriceService.self, rank: -1) { _ in LabelledPrices(label: "fallback") }
        #expect(try hive.createService(PriceService.self).label == "gold")
        #expect(hive.registration(for: "BeeHiveTests.PriceService")?.rank == 10)
        #expect(hive.registration(for: "BeeHiveTests.PriceService")?.properties == ["tier": "gold"])
        #expect(Self.duplicates(in: hive).isEmpty, "\(Self.duplicates(in: hive))")

        // Equal ranks: today's policy, the first wins and the second is a duplicate.
        try hive.register(PriceService.self, rank: 10) { _ in LabelledPrices(label: "second gold") }
        #expect(try hive.createService(PriceService.self).label == "gold")
        let duplicate = try #require(Self.duplicates(in: hive).first)
        #expect(duplicate.error.message.contains("BeeHiveTests.PriceService"), "\(duplicate.error.message)")
        #expect(duplicate.severity == .warning)
    }

    @Test("in code: a higher rank takes over a shared instance's service; the new one is made on next use")
    func takeoverReplacesTheSharedInstance() async throws {
        let hive = Hive()
        try hive.register(PriceService.self, scope: .singleton) { _ in LabelledPrices(label: "first") }
        #expect(try hive.createService(PriceService.self).label == "first")
        try hive.register(PriceService.self, scope: .singleton, rank: 1) { _ in LabelledPrices(label: "better") }
        #expect(try hive.createService(PriceService.self).label == "better")
        #expect(try await hive.service(PriceService.self).label == "better")
    }

    @Test("a higher rank registered while the first instance is being made: the caller gets it, the next the new one")
    func takeoverDuringCreation() throws {
        let hive = Hive()
        try hive.register(PriceService.self, scope: .singleton) { hive in
            // The factory runs without the lock: code may register meanwhile, here a registration that outranks it.
            try hive.register(PriceService.self, scope: .singleton, rank: 1) { _ in LabelledPrices(label: "better") }
            return LabelledPrices(label: "first")
        }
        #expect(try hive.createService(PriceService.self).label == "first", "the request that made it gets it")
        #expect(try hive.createService(PriceService.self).label == "better", "not the outranked one, cached")
        #expect(try hive.createService(PriceService.self).label == "better")
    }

    @Test("services(_:where:) gives every name's implementation whose properties match, highest rank first")
    func servicesWhere() throws {
        let hive = Hive()
        try hive.register(PriceService.self, name: "us", properties: ["region": "us"]) { _ in
            LabelledPrices(label: "us")
        }
        try hive.register(PriceService.self, name: "eu", rank: 5, properties: ["region": "eu", "tier": "gold"]) { _ in
            LabelledPrices(label: "eu")
        }
        try hive.register(service: PriceService.self, impl: StandardPrices.self)
        #expect(Self.labels(try hive.services(PriceService.self)) == ["eu", "us", "standard"])
        #expect(Self.labels(try hive.services(PriceService.self) { $0["region"] == "eu" }) == ["eu"])
        #expect(Self.labels(try hive.services(PriceService.self) { $0["tier"] == "platinum" }).isEmpty)
        #expect(try hive.services(UnregisteredPrices.self).isEmpty, "a service nothing registers")
    }

    @Test("a file's entries carry rank and properties; a bad rank or property is refused, naming its key")
    func fileRanks() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-ranks-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(
            """
            [
              {"service": "BeeHiveTests.PriceService", "impl": "BeeHiveTests.StandardPrices"},
              {"service": "BeeHiveTests.PriceService", "impl": "BeeHiveTests.EuropeanPrices", "rank": 20,
               "properties": {"region": "eu"}},
              {"service": "BeeHiveTests.PriceService", "impl": "BeeHiveTests.AmericanPrices", "rank": "high"},
              {"service": "BeeHiveTests.PriceService", "impl": "BeeHiveTests.AmericanPrices", "name": "us",
               "properties": {"region": 1}},
              {"service": "BeeHiveTests.PriceService", "impl": "BeeHiveTests.AmericanPrices", "name": "us",
               "rank": 3, "properties": {"region": "us"}}
            ]
            """.utf8
        ).write(to: URL(fileURLWithPath: path))
        let hive = Hive()
        let problems = try hive.loadServices(from: path)
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.error.message.contains("expected an integer for \"rank\"; found \"high\"") })
        #expect(problems.contains { $0.error.message.contains("expected a string for \"region\" in \"properties\"") })
        #expect(problems.allSatisfy { $0.error.code == .malformedEntry })
        #expect(try hive.createService(PriceService.self).label == "eu")
        #expect(try hive.createService(PriceService.self, name: "us").label == "us")
        #expect(Self.labels(try hive.services(PriceService.self) { $0["region"] != nil }) == ["eu", "us"])
    }

    /// Runs `body` with a new folder for plugins, holding the lock of tests that load images into this process;
    /// removes the folder afterwards.
    static func withPluginFolder(_ body: (URL) throws -> Void) throws {
        try imageLoading.withLock { _ in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-plugin-tests-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try body(folder)
        }
    }

    /// Compiles a C plugin whose record registers `implementation` for PriceService with `rank` and `properties`
    /// (`BH_RANKED_SERVICE`).
    static func rankedPlugin(
        _ implementation: String, rank: Int, properties: [(String, String)], in folder: URL
    ) throws -> String {
        let pairs = properties.map { ", \"\($0.0)\", \"\($0.1)\"" }.joined()
        return try Command.buildCPlugin(
            """
            #include <beehive.h>
            BH_RANKED_SERVICE(BeeHiveTests.PriceService, BeeHiveTests.\(implementation), \(rank)\(pairs))
            """, named: "lib\(implementation).so", in: folder)
    }

    @Test("plugins: the highest-ranked plugin serves; when it is retired the next one does, then code's again")
    func pluginsTakeOverAndHandBack() throws {
        try RankingTests.withPluginFolder { folder in
            let european = try Self.rankedPlugin("EuropeanPrices", rank: 10, properties: [("region", "eu")], in: folder)
            let american = try Self.rankedPlugin(
                "AmericanPrices", rank: 5, properties: [("region", "us"), ("tier", "gold")], in: folder)
            let hive = Hive(options: Hive.Options(scansLoadedImages: true))
            try hive.register(service: PriceService.self, impl: StandardPrices.self)
            let served = { try hive.createService(PriceService.self).label }
            #expect(try served() == "standard")

            let eu = try hive.plugins.load(path: european)
            #expect(try served() == "eu", "a higher rank takes over from code")
            let us = try hive.plugins.load(path: american)
            #expect(try served() == "eu", "a lower rank waits")
            #expect(Self.labels(try hive.services(PriceService.self)) == ["eu", "us", "standard"])
            #expect(Self.labels(try hive.services(PriceService.self) { $0["tier"] == "gold" }) == ["us"])
            #expect(hive.registration(for: "BeeHiveTests.PriceService")?.properties == ["region": "eu"])
            #expect(Self.duplicates(in: hive).isEmpty, "\(Self.duplicates(in: hive))")

            try eu.retire()
            #expect(try served() == "us", "the next rank takes over")
            try us.retire()
            #expect(try served() == "standard", "code's registration serves again")
            #expect(Self.labels(try hive.services(PriceService.self)) == ["standard"])
        }
    }

    @Test("a higher-ranked plugin joins and leaves 20 times while 4 threads resolve: never not found, both serve")
    func takeoversWhileResolving() throws {
        try RankingTests.withPluginFolder { folder in
            let european = try Self.rankedPlugin("EuropeanPrices", rank: 10, properties: [], in: folder)
            let hive = Hive(options: Hive.Options(scansLoadedImages: true))
            try hive.register(PriceService.self, scope: .singleton) { _ in StandardPrices() }

            let stop = Atomic<Bool>(false)
            let failures = Atomic<Int>(0)
            let calls = Atomic<Int>(0)
            // A pthread mutex, which ThreadSanitizer sees.
            let seen = LockedValue<Set<String>>([])
            let readers = DispatchGroup()
            for _ in 0..<4 {
                DispatchQueue.global().async(group: readers) {
                    var labels: Set<String> = []
                    while !stop.load(ordering: .relaxed) {
                        calls.add(1, ordering: .relaxed)
                        if let service = try? hive.createService(PriceService.self) {
                            labels.insert(service.label)
                        } else {
                            failures.add(1, ordering: .relaxed)
                        }
                        if (try? hive.services(PriceService.self))?.isEmpty != false {
                            failures.add(1, ordering: .relaxed)
                        }
                    }
                    seen.withLock { $0.formUnion(labels) }
                }
            }
            for _ in 0..<20 {
                let plugin = try hive.plugins.load(path: european)
                var started = calls.load(ordering: .relaxed)
                while calls.load(ordering: .relaxed) < started + 8 { sched_yield() }
                try plugin.retire()
                started = calls.load(ordering: .relaxed)
                while calls.load(ordering: .relaxed) < started + 8 { sched_yield() }
            }
            stop.store(true, ordering: .relaxed)
            readers.wait()
            #expect(failures.load(ordering: .relaxed) == 0, "of \(calls.load(ordering: .relaxed)) resolves")
            #expect(seen.withLock { $0 } == ["eu", "standard"])
            #expect(try hive.createService(PriceService.self).label == "standard")
        }
    }
}
