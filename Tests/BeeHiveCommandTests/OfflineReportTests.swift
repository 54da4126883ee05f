import BeeHiveTestSupport
import Foundation
import Testing

@Suite("inspect --format report and graph: the report of Hive.report(), read from files")
struct OfflineReportTests {
    /// The real path of a built product: a process names its images so.
    private func product(_ name: String, _ configuration: String = "debug") throws -> String {
        URL(fileURLWithPath: try FixturePackage.product(name, configuration)).resolvingSymlinksInPath().path
    }

    /// `beehive inspect --format report` of `files`, decoded.
    private func offlineReport(_ files: [String]) throws -> ReportJSON {
        let output = try Tool.beehive(["inspect", "--format", "report"] + files)
        #expect(output.status == 0, "\(output)")
        do {
            return try JSONDecoder().decode(ReportJSON.self, from: Data(output.stdout.utf8))
        } catch {
            throw Tool.Failure(description: "the report does not decode (\(error)):\n\(output)")
        }
    }

    @Test("AnnotatedApp's report from its file equals the report its hive gives at run time")
    func annotatedApp() throws {
        let app = try product("AnnotatedApp")
        let live = try JSONDecoder().decode(ReportJSON.self, from: Data(try Tool.succeed(app, ["--report"]).utf8))
        let offline = try offlineReport([app])
        #expect(offline.fromRecords == live.fromRecords)
        #expect(offline.schemaVersion == 1)
        // Every record of every section its notes name: the internal section's AnnotatedApp.Clock comes first and
        // serves, the other one is a duplicate, as in the process.
        #expect(offline.services.count == 5, "\(offline.services)")
        #expect(offline.services.allSatisfy { $0.state == "declared" && $0.source.image == app })
        #expect(Set(offline.modules.map(\.module)) == ["AnnotatedApp.NetworkModule", "AnnotatedApp.LoginModule"])
        #expect(offline.routes.map(\.pattern) == ["app://user/:id"])
        #expect(offline.problems.map(\.code) == ["duplicateRegistration"], "\(offline.problems)")
        #expect(offline.problems.first?.message.contains("AnnotatedApp.ValueClock here") == true)
    }

    @Test("a plugin host and the plugin it loads: the report from the files equals the host's after dlopen")
    func hostAndPlugin() throws {
        let files = try ["PluginHost", "libGreeterPlugin.so", "libPluginAPI.so", "libBeeHiveDynamic.so"].map {
            try product($0)
        }
        let output = try Tool.succeed(files[0], [files[1], "--report"])
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("report=") }, "\(output)")
        let live = try JSONDecoder().decode(ReportJSON.self, from: Data(line.dropFirst("report=".count).utf8))
        let offline = try offlineReport(files)
        // What only the files tell: the plugin declares a module it does not define (a hive finds it when it
        // starts the modules), with the code a hive gives it.
        let unknown = offline.problems.filter { $0.code == "unknownType" }
        #expect(unknown.map(\.message).allSatisfy { $0.contains("GreeterPlugin.GreeterModule") } && unknown.count == 1)
        #expect(unknown.first?.source?.image == files[1])
        var expected = live.fromRecords
        expected.problems += unknown
        #expect(offline.fromRecords == expected)
        #expect(offline.services.map(\.implementation) == ["GreeterPlugin.PluginGreeter"])
    }

    @Test("duplicates, malformed records and unknown names are the report's problems, with the hive's codes")
    func problems() throws {
        let bench = try Workbench.shared.get()
        let duplicates = try Tool.beehive(
            ["inspect", "--format", "report", bench.path("records.o"), bench.path("duplicate.o")])
        let report = try JSONDecoder().decode(ReportJSON.self, from: Data(duplicates.stdout.utf8))
        let duplicate = try #require(report.problems.first { $0.code == "duplicateRegistration" }, "\(duplicates)")
        #expect(duplicate.message.contains("App.FileTracker"))
        #expect(duplicate.source?.section == "beehive_services")
        let broken = try Tool.beehive(["inspect", "--format", "report", bench.path("swiftapp-broken")])
        let brokenReport = try JSONDecoder().decode(ReportJSON.self, from: Data(broken.stdout.utf8))
        let unknown = brokenReport.problems.filter { $0.code == "unknownType" }.map(\.message)
        #expect(unknown.contains { $0.contains("App.Ghost") } && unknown.contains { $0.contains("App.AppServise") })
        let malformed = try Tool.beehive(["inspect", "--format", "report", bench.path("malformed.o")])
        let codes = try JSONDecoder().decode(ReportJSON.self, from: Data(malformed.stdout.utf8)).problems.map(\.code)
        #expect(codes.filter { $0 == "malformedRecord" }.count == 2, "\(malformed)")
        #expect(codes.contains("invalidUTF8") && codes.contains("unknownModuleLevel"))
        #expect(codes.contains("unterminatedRecord"))
    }

    @Test("a file that cannot be read is an unreadableImage problem, and exit status 2")
    func unreadableFile() throws {
        let bench = try Workbench.shared.get()
        let output = try Tool.beehive(["inspect", "--format", "report", bench.path("no-such-file")])
        #expect(output.status == 2)
        let report = try JSONDecoder().decode(ReportJSON.self, from: Data(output.stdout.utf8))
        #expect(report.problems.map(\.code) == ["unreadableImage"])
        #expect(output.stderr.contains("no-such-file"))
    }

    @Test(
        "graph draws AnnotatedApp, and a host with its plugin, with dot: a node for every service",
        arguments: [["AnnotatedApp"], ["PluginHost", "libGreeterPlugin.so", "libPluginAPI.so"]])
    func graph(names: [String]) throws {
        let files = try names.map { try product($0) }
        let graph = try Tool.beehive(["graph"] + files)
        #expect(graph.status == 0, "\(graph)")
        #expect(graph.stdout.hasPrefix("digraph hive {"))
        // One folder per case: the cases run in parallel in one process.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-graph-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let dotFile = folder.appendingPathComponent("hive.dot")
        try graph.stdout.write(to: dotFile, atomically: true, encoding: .utf8)
        let svg = try Tool.succeed("dot", ["-Tsvg", dotFile.path])
        let report = try offlineReport(files)
        #expect(!report.services.isEmpty)
        for service in report.services {
            #expect(svg.contains(">\(service.service)</text>"), "no node for \(service.service):\n\(svg)")
        }
        for module in report.modules { #expect(svg.contains(">\(module.module)</text>"), "\(module.module)") }
    }
}
