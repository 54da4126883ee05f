import BeeHiveTestSupport
import Foundation
import Testing

@Suite("beehive check: what a program would get wrong, before it runs")
struct CheckTests {
    let bench: Workbench

    init() throws { bench = try Workbench.shared.get() }

    /// The findings with `code`, one line each.
    private func lines(_ output: Tool.Output, code: String) -> [String] {
        output.stdout.split(separator: "\n").map(String.init).filter { $0.hasSuffix("[\(code)]") }
    }

    @Test("a Swift program whose records name its own types passes with exit status 0")
    func cleanProgram() throws {
        let output = try Tool.beehive(["check", bench.path("swiftapp")])
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.hasSuffix("checked 5 records in 1 file: no problems\n"), "\(output)")
    }

    @Test("a type with no type descriptor in the program is missing: exit status 1")
    func missingType() throws {
        let output = try Tool.beehive(["check", bench.path("swiftapp-broken")])
        #expect(output.status == 1, "\(output)")
        let missing = lines(output, code: "missingType")
        #expect(missing.count == 3, "\(output)")
        #expect(missing.contains { $0.contains("expected type App.GhostImpl (the implementation of App.Ghost)") })
        #expect(
            missing.contains { $0.contains("expected service App.Ghost (the service implemented by App.GhostImpl)") })
        // Classes, structs nested in enums, enums and names that repeat the module's words are all found.
        for present in ["App.AppServiceImpl", "App.Outer.ValueClock", "App.Choice", "App.AppModule", "App.HomeRoute"] {
            #expect(!output.stdout.contains("type \(present) "), "\(present): \(output)")
        }
    }

    @Test("a misspelt service (a protocol the program does not define) is missing, with the closest protocol named")
    func misspeltService() throws {
        let output = try Tool.beehive(["check", bench.path("swiftapp-broken")])
        #expect(output.status == 1, "\(output)")
        let line = try #require(lines(output, code: "missingType").first { $0.contains("App.AppServise") }, "\(output)")
        #expect(line.contains("expected service App.AppServise (the service implemented by App.AppServiceImpl)"))
        #expect(line.hasSuffix("Did you mean `App.AppService`? [missingType]"), "\(line)")
        // A C record's name is a string: no typealias among the causes.
        #expect(!line.contains("typealias"), "\(line)")
        // A protocol is never an internal struct the optimizer removed: no such hint.
        #expect(!line.contains("optimizer"), "\(line)")
        // The implementation it names exists: reported once, for the service only.
        #expect(!output.stdout.contains("type App.AppServiceImpl ("), "\(output)")
    }

    @Test("a stripped binary's types are unknown, not missing: exit status 0")
    func strippedBinary() throws {
        let output = try Tool.beehive(["check", bench.path("swiftapp-stripped")])
        #expect(output.status == 0, "\(output)")
        #expect(lines(output, code: "missingType").isEmpty)
        let unknown = lines(output, code: "typeNotChecked")
        // Six types and four services (App.AppService, App.Clock, App.Ghost, App.AppServise).
        #expect(unknown.count == 10, "\(output)")
        #expect(
            unknown.allSatisfy {
                ($0.contains(": note: type ") || $0.contains(": note: service ")) && $0.contains("unknown")
                    && $0.contains("stripped")
            })
    }

    @Test("object files alone: types are unknown (the Swift objects are elsewhere), and nothing else is wrong")
    func objectFilesAlone() throws {
        let output = try Tool.beehive(["check", bench.path("records.o"), bench.path("payments.o")])
        #expect(output.status == 0, "\(output)")
        // Seven types and three services.
        #expect(lines(output, code: "typeNotChecked").count == 10)
        #expect(lines(output, code: "typeNotChecked").allSatisfy { $0.contains("no executable or shared library") })
    }

    @Test("a service declared in two files is a duplicate, with both places named")
    func duplicates() throws {
        let output = try Tool.beehive(["check", bench.path("records.o"), bench.path("duplicate.o")])
        #expect(output.status == 1, "\(output)")
        let duplicates = lines(output, code: "duplicateRegistration")
        #expect(duplicates.count == 1, "\(output)")
        let line = try #require(duplicates.first)
        #expect(line.hasPrefix("\(bench.path("duplicate.o")): beehive_services+0x0"))
        #expect(line.contains("expected one implementation of App.Tracker"))
        #expect(
            line.contains(
                "App.FileTracker here and App.ConsoleTracker at \(bench.path("records.o")): beehive_services+0x0"))
    }

    @Test("ranked registrations: different ranks are alternatives, equal ranks duplicates; inspect shows both fields")
    func ranks() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-check-ranks-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = [
            "gold.c": #"BH_RANKED_SERVICE(App.Tracker, App.GoldTracker, 10, "tier", "gold")"#,
            "others.c": "BH_SERVICE(App.Tracker, App.ConsoleTracker)\nBH_RANKED_SERVICE(App.Tracker, App.Other, 10)",
        ]
        for (name, text) in sources {
            try ("#include <beehive.h>\n" + text + "\n").write(
                to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
            let include = "-I" + Tool.repository.appendingPathComponent("CSupport/CBeeHive/include").path
            let object = name.replacingOccurrences(of: ".c", with: ".o")
            try Tool.succeed("cc", [include, "-c", name, "-o", object], in: folder)
        }
        let objects = ["gold.o", "others.o"].map { folder.appendingPathComponent($0).path }
        let output = try Tool.beehive(["check"] + objects)
        let duplicates = lines(output, code: "duplicateRegistration")
        #expect(duplicates.count == 1, "\(output)")
        #expect(duplicates.first?.contains("App.Other here and App.GoldTracker at") == true, "\(output)")

        let (report, _) = try Tool.inspectJSON([objects[0]])
        let record = try #require(report.files.first?.images.first?.records.first)
        #expect(record.rank == 10 && record.properties == ["tier": "gold"], "\(record)")
    }

    @Test("the files are one program: what an executable and an object file both declare is duplicated, not the plugin")
    func duplicatesAcrossExecutableAndPlugin() throws {
        let output = try Tool.beehive(["check", bench.path("app"), bench.path("libplugin.so"), bench.path("records.o")])
        #expect(output.status == 1)
        #expect(lines(output, code: "duplicateRegistration").count == 5, "\(output)")
    }

    @Test("records without the image note are found: the scanner would not read them")
    func missingNote() throws {
        let output = try Tool.beehive(["check", bench.path("nonote.o")])
        #expect(output.status == 1, "\(output)")
        let line = try #require(lines(output, code: "missingNote").first)
        #expect(line.hasPrefix("\(bench.path("nonote.o")): beehive_services: error: expected a BeeHive note"))
        // In a link, another object's note covers the section: together with records.o nothing is missing.
        let together = try Tool.beehive(["check", bench.path("nonote.o"), bench.path("records.o")])
        #expect(lines(together, code: "missingNote").isEmpty, "\(together)")
    }

    @Test("records the linker would drop: a section without SHF_GNU_RETAIN, an archive member nothing pulls in")
    func droppedByLinker() throws {
        let unretained = try Tool.beehive(["check", bench.path("unretained.o")])
        #expect(unretained.status == 1)
        let line = try #require(lines(unretained, code: "droppedByLinker").first)
        #expect(line.contains("SHF_GNU_RETAIN") && line.contains("--gc-sections"))

        let loose = try Tool.beehive(["check", bench.path("libloose.a")])
        #expect(loose.status == 1)
        let member = try #require(lines(loose, code: "droppedByLinker").first)
        #expect(member.hasPrefix("\(bench.path("libloose.a"))(loose.o): error: this archive member has 1 records"))
        #expect(member.contains("--whole-archive"))

        // Members that define a symbol are pulled in when the program uses it: no finding.
        let pulled = try Tool.beehive(["check", bench.path("librecords.a")])
        #expect(lines(pulled, code: "droppedByLinker").isEmpty, "\(pulled)")
    }

    @Test("malformed records fail the check, each with the parser's message")
    func malformedRecords() throws {
        let output = try Tool.beehive(["check", bench.path("malformed.o")])
        #expect(output.status == 1)
        #expect(lines(output, code: "malformedRecord").count == 2)
        #expect(lines(output, code: "invalidUTF8").count == 1)
        #expect(lines(output, code: "unknownModuleLevel").count == 1)
        let unterminated = try #require(lines(output, code: "unterminatedRecord").first)
        #expect(unterminated.contains("expected a NUL byte after the record"))
        #expect(unterminated.contains("(file offset 0x"))
    }

    @Test("the release fixture lost the internal struct the optimizer removed; the debug fixture has it")
    func releaseAndDebugFixtures() throws {
        let release = try Tool.beehive(["check", try FixturePackage.product("AnnotatedApp", "release")])
        let debug = try Tool.beehive(["check", try FixturePackage.product("AnnotatedApp", "debug")])
        let internalClock = "expected type AnnotatedApp.InternalClock"
        #expect(lines(release, code: "missingType").contains { $0.contains(internalClock) }, "\(release)")
        #expect(!lines(debug, code: "missingType").contains { $0.contains(internalClock) }, "\(debug)")
        // Public types named only by records survive both builds: services, modules and the route handler.
        for output in [release, debug] {
            #expect(!output.stdout.contains("AnnotatedApp.ValueClock ("))
            #expect(!output.stdout.contains("AnnotatedApp.Stores.DiskStorage ("))
            #expect(!lines(output, code: "missingType").contains { $0.contains("AnnotatedApp.UserRoute") }, "\(output)")
            #expect(!lines(output, code: "missingType").contains { $0.contains("AnnotatedApp.LoginModule") })
        }
    }

    @Test("a host and the Swift plugin it loads, checked together: the plugin's implementation is in the plugin")
    func hostAndPlugin() throws {
        let products = try FixturePackage.products("release")
        let files = ["PluginHost", "libGreeterPlugin.so", "libBeeHiveDynamic.so", "libPluginAPI.so"].map {
            products.appendingPathComponent($0).path
        }
        let (json, _) = try Tool.inspectJSON([files[1]])
        let plugin = try #require(json.files.first?.images.first)
        #expect(plugin.type == "sharedLibrary")
        #expect(plugin.records.compactMap(\.implementation) == ["GreeterPlugin.PluginGreeter"])
        let output = try Tool.beehive(["check"] + files)
        #expect(!output.stdout.contains("GreeterPlugin.PluginGreeter ("), "\(output)")
        // The fixture declares a module it does not define.
        #expect(lines(output, code: "missingType").map { $0.contains("GreeterPlugin.GreeterModule") } == [true])
        #expect(lines(output, code: "noRecords").count == 3)
    }

    @Test("a file that cannot be read gives exit status 2, and the other files are still checked")
    func unreadableFileAmongOthers() throws {
        let output = try Tool.beehive(["check", bench.path("no-such-file"), bench.path("malformed.o")])
        #expect(output.status == 2)
        #expect(
            output.stderr == "beehive: \(bench.path("no-such-file")): cannot be opened: No such file or directory\n")
        #expect(lines(output, code: "unterminatedRecord").count == 1)
        #expect(output.stdout.contains("; 1 file not read"))
    }
}
