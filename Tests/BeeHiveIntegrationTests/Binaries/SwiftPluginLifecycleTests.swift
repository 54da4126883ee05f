import BeeHiveTestSupport
import Foundation
import Testing

/// Swift plugins loaded, upgraded and retired with `Hive.plugins` in a host on BeeHiveDynamic (HotPluginHost in a
/// child process), with the two versions of the HotGreeter plugin (a singleton service under two keys, a route, a
/// module) and C plugins compiled here.
@Suite("Real binaries: Swift plugins loaded, upgraded and retired (HotPluginHost in a child process)", .serialized)
struct SwiftPluginLifecycleTests {
    static let configurations = ["debug", "release"]

    /// A folder with copies of the two plugin versions, so that tests can replace and rewrite them.
    final class Folder {
        let url: URL
        let v1: String
        let v2: String

        init(_ configuration: String) throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-hot-\(getpid())-\(UUID())")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            let products = try HotPluginHost.products(configuration)
            v1 = url.appendingPathComponent("v1.so").path
            v2 = url.appendingPathComponent("v2.so").path
            try FileManager.default.copyItem(
                atPath: products.appendingPathComponent("libHotGreeterV1.so").path, toPath: v1)
            try FileManager.default.copyItem(
                atPath: products.appendingPathComponent("libHotGreeterV2.so").path, toPath: v2)
        }

        deinit { try? FileManager.default.removeItem(at: url) }

        func path(_ name: String) -> String { url.appendingPathComponent(name).path }

        /// Compiles a C plugin of Tests/Fixtures/CPlugins with cc (no Swift runtime registration).
        func cPlugin(_ name: String, from source: String) throws -> String {
            let output = path(name)
            let include = Command.repository.appendingPathComponent("CSupport/CBeeHive/include").path
            let file = FixturePackage.path.appendingPathComponent("CPlugins/\(source)").path
            try Command.run("cc", ["-shared", "-fPIC", "-I", include, file, "-o", output])
            return output
        }
    }

    @Test(
        "load, then retire: services, named services and routes withdrawn, the singleton released",
        arguments: configurations)
    func loadAndRetire(_ configuration: String) throws {
        let folder = try Folder(configuration)
        let run = try HotPluginHost.run(
            [
                "load:\(folder.v1)", "greet", "route:hot://greet/a", "retire:0", "greet", "route:hot://greet/b",
                "retire:0",
            ], configuration: configuration)
        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.fields(0, "load")["services"] == "2")
        #expect(run.fields(0, "load")["routes"] == "1")
        #expect(run.fields(0, "load")["swift"] == "true")
        #expect(run.value(1, "greet") == "v1:host")
        #expect(run.value(2, "route") == "v1:a")
        #expect(run.value(3, "retire") == "ok")
        #expect(run.notes.contains("v1 greeter deinit"), "BeeHive released the shared instance it made: \(run)")
        #expect(run.value(4, "greet") == "serviceNotFound", "nothing of it is handed out after retire returns")
        #expect(run.value(5, "route") == "error")
        #expect(run.value(6, "retire")?.hasPrefix("error:retired") == true)
    }

    struct Place: Sendable, CustomStringConvertible {
        let description: String
        /// The steps that put version 2 where the test upgrades from, and the path to upgrade to.
        let steps: @Sendable (Folder) -> (steps: [String], path: String)
    }

    static let places: [Place] = [
        Place(description: "v2 from another path") { ([], $0.v2) },
        Place(description: "v2 copied over v1's file in place (same inode)") {
            (["copy-over:\($0.v2):\($0.v1)"], $0.v1)
        },
    ]

    @Test("upgrade: v2's registrations replace v1's; the old singleton is released", arguments: places)
    func upgrade(_ place: Place) throws {
        let folder = try Folder("debug")
        let (prepare, path) = place.steps(folder)
        let steps = ["load:\(folder.v1)", "greet"] + prepare + ["upgrade:0:\(path)", "greet", "route:hot://greet/x"]
        let run = try HotPluginHost.run(steps)
        try #require(run.outcome.succeeded, "\(run)")
        let upgrade = 2 + prepare.count
        #expect(run.value(1, "greet") == "v1:host")
        #expect(run.fields(upgrade, "upgrade")["services"] == "2", "\(run)")
        #expect(run.value(upgrade + 1, "greet") == "v2:host")
        #expect(run.value(upgrade + 2, "route") == "v2:x")
        #expect(run.notes.contains("v1 greeter deinit"))
    }

    @Test("upgrading back to v1's module at the same path finds the new image's types, not the retired one's")
    func sameNamesAgain() throws {
        let folder = try Folder("debug")
        let run = try HotPluginHost.run([
            "load:\(folder.v1)", "greet", "upgrade:0:\(folder.v2)", "greet", "upgrade:1:\(folder.v1)", "greet",
            "route:hot://greet/z",
        ])
        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(5, "greet") == "v1:host")
        #expect(run.value(6, "route") == "v1:z")
        #expect(run.notes.filter { $0 == "v1 greeter init" }.count == 2, "a new instance, of the new image: \(run)")
    }

    @Test("modules: a started manager tears v1's module down and sets v2's up, init and splash; retire tears down")
    func modules() throws {
        let folder = try Folder("debug")
        let run = try HotPluginHost.run([
            "load:\(folder.v1)", "start-modules", "modules", "upgrade:0:\(folder.v2)", "settle", "modules", "retire:1",
            "settle", "modules",
        ])
        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(2, "modules") == "HotGreeterV1.HotModule")
        #expect(run.value(5, "modules") == "HotGreeterV2.HotModule")
        #expect(run.value(8, "modules") == "")
        let lifecycle = run.notes.filter { $0.contains("module") }
        #expect(
            lifecycle == [
                "v1 module setUp", "v1 module init", "v1 module splash", "v1 module tearDown", "v2 module setUp",
                "v2 module init", "v2 module splash", "v2 module tearDown",
            ], "\(run)")
    }

    @Test(
        "upgrades under concurrent resolves and route opens: every call gets v1 or v2, never not found",
        arguments: configurations)
    func upgradesUnderLoad(_ configuration: String) throws {
        let folder = try Folder(configuration)
        let run = try HotPluginHost.run(
            ["load:\(folder.v1)", "stress:4:20:\(folder.v1):\(folder.v2)", "greet"], configuration: configuration,
            timeout: 120)
        try #require(run.outcome.succeeded, "\(run)")
        let stress = run.fields(1, "stress")
        #expect(Int(stress["calls"] ?? "") ?? 0 > 0)
        #expect(stress["failures"] == "0", "\(run)")
        #expect(stress["upgradeFailures"] == "0")
        #expect(stress["versions"] == "1,2")
        #expect(run.value(2, "greet") == "v1:host", "20 upgrades alternate v2, v1, …: the last is v1")
    }

    @Test("a plugin of C code only, retired, is unmapped; a Swift one stays mapped")
    func cPluginUnmapped() throws {
        let folder = try Folder("debug")
        let c = try folder.cPlugin("c_only.so", from: "hot_c_only.c")
        let run = try HotPluginHost.run([
            "load:\(folder.v1)", "load:\(c)", "mapped:c_only.so", "retire:1", "mapped:c_only.so", "retire:0",
            "mapped:v1.so",
        ])
        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.fields(1, "load")["swift"] == "false")
        #expect(run.value(2, "mapped") == "yes")
        #expect(run.value(4, "mapped") == "no")
        #expect(run.value(6, "mapped") == "yes", "the Swift plugin's private copy stays mapped (pinned)")
    }

    @Test("a plugin with a malformed record is refused and registers nothing")
    func refused() throws {
        let folder = try Folder("debug")
        let bad = try folder.cPlugin("bad.so", from: "hot_malformed.c")
        let run = try HotPluginHost.run(["load:\(bad)", "greet"])
        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(0, "load")?.hasPrefix("error:refused") == true, "\(run)")
        #expect(
            run.value(0, "load")?.contains("missing colon") == true
                || run.value(0, "load")?.contains("1 cannot") == true)
        #expect(run.value(1, "greet") == "serviceNotFound", "the good record of the refused plugin was not registered")
    }

    @Test("with trusted files required, a file or a folder others may write is refused, named with the reason")
    func untrusted() throws {
        let folder = try Folder("debug")
        chmod(folder.url.path, 0o755)
        chmod(folder.v1, 0o666)
        let inner = folder.path("open")
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: true)
        chmod(inner, 0o777)
        let inOpenFolder = "\(inner)/v2.so"
        try FileManager.default.copyItem(atPath: folder.v2, toPath: inOpenFolder)
        chmod(inOpenFolder, 0o755)
        let run = try HotPluginHost.run([
            "trusted-load:\(folder.v1)", "trusted-load:\(inOpenFolder)", "load:\(folder.v1)",
        ])
        try #require(run.outcome.succeeded, "\(run)")
        let file = run.value(0, "load") ?? ""
        #expect(file.hasPrefix("error:untrustedFile"), "\(run)")
        #expect(file.contains("the plugin file") && file.contains("everyone"))
        let directory = run.value(1, "load") ?? ""
        #expect(directory.hasPrefix("error:untrustedFile"))
        #expect(directory.contains("the directory \(inner)"), "\(directory)")
        #expect(run.value(2, "load")?.hasPrefix("plugin:") == true, "without the option, the same file loads")
    }
}

extension SwiftPluginLifecycleTests {
    @Test("a plugin that carries its own copy of BeeHive (a static product) is refused, naming it and what to change")
    func secondBeeHive() throws {
        let plugin = try HotPluginHost.products("debug").appendingPathComponent("libDoubleBeeHivePlugin.so").path
        let run = try HotPluginHost.run(["load:\(plugin)", "greet"])
        try #require(run.outcome.succeeded, "\(run)")
        let load = run.value(0, "load") ?? ""
        #expect(load.hasPrefix("error:secondBeeHive"), "\(run)")
        #expect(load.contains("libDoubleBeeHivePlugin.so") && load.contains("BeeHiveDynamic"), "\(load)")
        #expect(run.value(1, "greet") == "serviceNotFound")
    }
}

extension SwiftPluginLifecycleTests {
    /// Wrong files for `load`, each made here: the protocols' library the host links (by its path, and a copy of it
    /// elsewhere: the same build-id), the host program itself, a library without records, random bytes, a
    /// relocatable object, and a plugin that carries its own BeeHive.
    struct WrongFiles {
        let api: String
        let apiCopy: String
        let host: String
        let noRecords: String
        let junk: String
        let object: String
        let doubleBeeHive: String

        init(_ folder: Folder) throws {
            let products = try HotPluginHost.products("debug")
            api = products.appendingPathComponent("libPluginAPI.so").path
            apiCopy = folder.path("libPluginAPI-copy.so")
            try FileManager.default.copyItem(atPath: api, toPath: apiCopy)
            host = products.appendingPathComponent("HotPluginHost").path
            doubleBeeHive = products.appendingPathComponent("libDoubleBeeHivePlugin.so").path
            let source = folder.path("plain.c")
            try "int plain_answer(void) { return 42; }\n".write(toFile: source, atomically: true, encoding: .utf8)
            noRecords = folder.path("libplain.so")
            try Command.run("cc", ["-shared", "-fPIC", source, "-o", noRecords])
            object = folder.path("plain.o")
            try Command.run("cc", ["-c", "-fPIC", source, "-o", object])
            junk = folder.path("junk.so")
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data([0x12] + bytes.dropFirst()).write(to: URL(fileURLWithPath: junk))
        }
    }

    @Test("wrong files given to load are refused, saying what they are; later loads, upgrades and retires work")
    func wrongFilesChangeNothing() throws {
        let folder = try Folder("debug")
        let wrong = try WrongFiles(folder)
        let temporary = folder.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let run = try HotPluginHost.run(
            [
                "load:\(wrong.api)", "load:\(wrong.apiCopy)", "load:\(wrong.host)", "load:\(wrong.noRecords)",
                "load:\(wrong.junk)", "load:\(wrong.object)", "load:\(wrong.doubleBeeHive)",
                "load:\(folder.v1)", "greet", "upgrade:0:\(folder.v2)", "greet", "retire:1", "greet",
                "load:\(folder.v1)",
                "greet", "exit",
            ], environment: ["TMPDIR": temporary])
        try #require(run.outcome.succeeded, "\(run)")
        let refusals = (0...6).map { run.value($0, "load") ?? "" }
        #expect(refusals[0].hasPrefix("error:alreadyLoaded") && refusals[0].contains("(the same path)"), "\(run)")
        #expect(refusals[0].contains("protocols' package") && refusals[0].contains("upgrade"))
        #expect(refusals[1].hasPrefix("error:alreadyLoaded") && refusals[1].contains("libPluginAPI.so"), "\(run)")
        #expect(refusals[2].hasPrefix("error:alreadyLoaded") && refusals[2].contains("the main program"), "\(run)")
        #expect(refusals[3].hasPrefix("error:noRecords") && refusals[3].contains("BH_SERVICE"), "\(run)")
        #expect(refusals[4].hasPrefix("error:notASharedLibrary") && refusals[4].contains("12 "), "\(run)")
        #expect(refusals[5].hasPrefix("error:notASharedLibrary") && refusals[5].contains("relocatable"), "\(run)")
        #expect(refusals[6].hasPrefix("error:secondBeeHive"), "\(run)")
        #expect(run.fields(7, "load")["services"] == "2", "the good plugin joins after every refusal: \(run)")
        #expect(run.value(8, "greet") == "v1:host")
        #expect(run.fields(9, "upgrade")["services"] == "2", "\(run)")
        #expect(run.value(10, "greet") == "v2:host")
        #expect(run.value(11, "retire") == "ok")
        #expect(run.value(12, "greet") == "serviceNotFound")
        #expect(run.fields(13, "load")["services"] == "2", "\(run)")
        #expect(run.value(14, "greet") == "v1:host")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            .filter { $0.contains(".beehive-") }
        #expect(leftovers.isEmpty, "the plugins' folder is never written: \(leftovers)")
        let copies = try FileManager.default.contentsOfDirectory(atPath: temporary)
        #expect(copies.isEmpty, "the directory of private copies is removed at exit: \(copies)")
    }
}

extension SwiftPluginLifecycleTests {
    @Test("on BeeHiveDynamic, the first diagnostic says the program's logging is not reached, and what to call")
    func loggingThroughTheSharedLibrary() throws {
        let folder = try Folder("debug")
        let bad = try folder.cPlugin("bad.so", from: "hot_malformed.c")
        let run = try HotPluginHost.run(["open:\(bad)", "rescan"])
        try #require(run.outcome.succeeded, "\(run)")
        let output = run.outcome.standardOutput + run.outcome.standardError
        let notice = output.split(separator: "\n").first { $0.contains("LoggingSystem.bootstrap") } ?? ""
        #expect(notice.contains("libBeeHiveDynamic.so"), "\(run)")
        #expect(notice.contains("Hive.bootstrap(.init(logger: Logger(label: \"BeeHive\")))"), "\(notice)")
        let firstDiagnostic = output.range(of: "missing colon") ?? output.range(of: "malformed")
        let noticeAt = output.range(of: "LoggingSystem.bootstrap")
        #expect(firstDiagnostic != nil && noticeAt != nil, "\(run)")
        if let firstDiagnostic, let noticeAt {
            #expect(noticeAt.lowerBound < firstDiagnostic.lowerBound, "the notice comes first")
        }
    }
}
