import BeeHiveTestSupport
import Foundation
import Testing

@testable import BeeHive

/// A service of the report's tests.
protocol ReportedService: Sendable {}

struct ReportedServiceImpl: ReportedService, ServiceImplementation {
    init() {}
}

@Suite("The hive's report: every registration with its source and state, what was withdrawn, the problems", .serialized)
struct ReportTests {
    @Test("services in code and from a file: declared, bound, created and unresolvable, each with its source")
    func statesAndSources() throws {
        let hive = Hive()
        try hive.register(ReportedService.self, scope: .singleton, rank: 2, properties: ["tier": "gold"]) { _ in
            ReportedServiceImpl()
        }
        try hive.register(service: ReportedService.self, impl: ReportedServiceImpl.self, name: "typed")
        try hive.register(service: "App.Missing", impl: "App.NoSuchType")
        try hive.register(service: "App.Later", impl: "App.NotLookedUp")
        _ = try hive.createService(ReportedService.self)
        #expect(throws: HiveError.self) { try hive.createService(named: "App.Missing") }
        try hive.register(service: "App.Later", impl: "App.Duplicate")

        let report = hive.report()
        #expect(report.schemaVersion == 1)
        let byImplementation = Dictionary(uniqueKeysWithValues: report.services.map { ($0.implementation, $0) })
        let factory = try #require(byImplementation["factory"])
        #expect(factory.state == .created && factory.scope == "singleton" && factory.rank == 2)
        #expect(factory.properties == ["tier": "gold"])
        #expect(
            factory.source.kind == "code"
                && factory.source.location?.hasPrefix("BeeHiveTests/ReportTests.swift:") == true)
        #expect(byImplementation["BeeHiveTests.ReportedServiceImpl"]?.state == .bound)
        #expect(byImplementation["BeeHiveTests.ReportedServiceImpl"]?.name == "typed")
        #expect(byImplementation["App.NotLookedUp"]?.state == .declared)
        let missing = try #require(byImplementation["App.NoSuchType"])
        #expect(missing.state == .unresolvable)
        #expect(missing.reason?.contains("App.NoSuchType") == true, "\(missing)")
        #expect(byImplementation["App.Duplicate"] == nil, "a duplicate of a registration in code never serves")
        #expect(report.problems.contains { $0.code == "duplicateRegistration" && $0.severity == "warning" })
        #expect(report.problems.contains { $0.code == "unknownType" && $0.source?.kind == "code" })
    }

    @Test("a file's entries name the file and the entry")
    func fileSources() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-report-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"[{"service":"App.A","impl":"App.AImpl"},{"service":"App.B"}]"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let hive = Hive()
        try hive.loadServices(from: path)
        let report = hive.report()
        #expect(report.services.count == 1)
        #expect(report.services.first?.source.kind == "file")
        #expect(report.services.first?.source.file == path && report.services.first?.source.entry == 0)
        let refused = try #require(report.problems.first)
        #expect(refused.code == "malformedEntry" && refused.source?.entry == 1 && refused.severity == "error")
    }

    @Test("plugins: the one serving and the one waiting behind it name their plugin; a retire is withdrawn")
    func pluginsAndWithdrawals() throws {
        try RankingTests.withPluginFolder { folder in
            let european = try RankingTests.rankedPlugin(
                "EuropeanPrices", rank: 10, properties: [("region", "eu")], in: folder)
            let american = try RankingTests.rankedPlugin("AmericanPrices", rank: 5, properties: [], in: folder)
            let hive = Hive(options: Hive.Options(scansLoadedImages: true))
            let eu = try hive.plugins.load(path: european)
            let us = try hive.plugins.load(path: american)
            let services = hive.report().services.filter { $0.service == "BeeHiveTests.PriceService" }
            #expect(services.map(\.implementation) == ["BeeHiveTests.EuropeanPrices", "BeeHiveTests.AmericanPrices"])
            #expect(services.map(\.state) == [.declared, .waiting])
            #expect(services.map(\.plugin) == [european, american])
            #expect(services.first?.source.kind == "annotation" && services.first?.source.section != nil)
            #expect(services.first?.source.location?.hasPrefix("libEuropeanPrices.so.c:") == true, "\(services)")

            try eu.retire()
            try us.retire()
            let report = hive.report()
            #expect(!report.services.contains { $0.service == "BeeHiveTests.PriceService" })
            let withdrawn = try #require(report.withdrawn.first { $0.service == "BeeHiveTests.PriceService" })
            #expect(withdrawn.reason.contains("the plugin \(american) was retired"), "\(withdrawn)")
        }
    }

    @Test("the report encodes to JSON with the documented keys, and decodes to the same value")
    func json() throws {
        let hive = Hive()
        try hive.register(service: "App.A", impl: "App.AImpl")
        let report = hive.report()
        let data = try JSONEncoder().encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys)
                == ["schemaVersion", "services", "modules", "routes", "withdrawn", "problems", "droppedProblems"])
        let service = try #require((object["services"] as? [[String: Any]])?.first)
        #expect(Set(service.keys) == ["service", "implementation", "state", "source"], "absent fields are left out")
        #expect(try JSONDecoder().decode(HiveReport.self, from: data) == report)
    }

    @Test("the report's Graphviz graph: sources, registrations, services, modules and problems; dot draws it")
    func graph() throws {
        try RankingTests.withPluginFolder { folder in
            let european = try RankingTests.rankedPlugin(
                "EuropeanPrices", rank: 10, properties: [("region", "eu")], in: folder)
            let hive = Hive(options: Hive.Options(scansLoadedImages: true))
            try hive.register(service: PriceService.self, impl: StandardPrices.self)
            try hive.register(service: "App.Missing", impl: "App.NoSuchType")
            _ = try? hive.createService(named: "App.Missing")
            try hive.declareModule("App.NetworkModule", level: .basic, priority: 100)
            let plugin = try hive.plugins.load(path: european)
            defer { try? plugin.retire() }
            let dot = hive.report().graphviz
            #expect(dot.hasPrefix("digraph hive {") && dot.hasSuffix("}\n"))
            #expect(dot.contains("label=\"plugin \(european)\""), "the plugin is a source")
            #expect(dot.contains("BeeHiveTests.EuropeanPrices\\nrank 10\\ndeclared"), "\(dot)")
            #expect(dot.contains("style=dashed, label=\"BeeHiveTests.StandardPrices\\nwaiting\""), "\(dot)")
            #expect(dot.contains("color=red, fontcolor=red, label=\"App.NoSuchType\\nunresolvable\""), "\(dot)")
            #expect(dot.contains("label=\"modules, level 0\"") && dot.contains("App.NetworkModule\\npriority 100"))
            #expect(dot.contains("shape=note, color=red, fontcolor=red, label=\"unknownType"), "\(dot)")
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dot") else { return }
            let file = folder.appendingPathComponent("hive.dot")
            try dot.write(to: file, atomically: true, encoding: .utf8)
            let svg = try Command.run("dot", ["-Tsvg", file.path])
            #expect(svg.contains("<svg") && svg.contains("EuropeanPrices"))
        }
    }
}
