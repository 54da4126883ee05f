import BeeHiveTestSupport
import Foundation
import Testing

@Suite("Real binaries: an annotated executable built by SwiftPM", .serialized)
struct AnnotatedBinaryTests {
    @Test(
        "every record of two C files is found and resolves (builds and runs the fixture)",
        arguments: ["debug", "release"])
    func annotatedApp(configuration: String) throws {
        let products = try FixturePackage.products(configuration)
        let binary = products.appendingPathComponent("AnnotatedApp").path
        let run = try ImageOpens.run(binary)
        #expect(run.opens == [], "the records are read from memory: no image file is opened")
        let result = Command.keyValues(run.output)
        #expect(result["registrations"] == "5")
        #expect(
            result["services"]
                == "AnnotatedApp.Clock,AnnotatedApp.Counter,AnnotatedApp.Greeter,AnnotatedApp.Greeter,AnnotatedApp.Storage"
        )
        #expect(result["greet"] == "hello")
        #expect(result["greetFrench"] == "bonjour")
        #expect(result["clock"] == "42", "a struct implementation resolves by its mangled name")
        #expect(result["storage"] == "disk", "a nested struct implementation resolves")
        #expect(result["counter"] == "1,2", "a singleton keeps its state between requests")
        #expect(result["sameCounter"] == "true")
        #expect(result["freshGreeters"] == "true", "a non-singleton gives a new instance per request")
        #expect(result["modules"] == "AnnotatedApp.NetworkModule:0:100:true,AnnotatedApp.LoginModule:1:10:false")
        #expect(result["routes"] == "app://user/:id=AnnotatedApp.UserRoute")
        #expect(result["diagnostics"] == "0")
        #expect(result["validate"] == "ok")
        #expect(result["imagesOpened"] == "0", "the note places the records in memory: no image file is opened")
        if configuration == "debug" {
            #expect(result["internalStruct"] == "7")
        } else {
            // The optimizer removed the internal struct; the diagnostic says why and what to do.
            #expect(result["internalStruct"]?.contains("[unknownType]") == true)
            #expect(result["internalStruct"]?.contains("make types named only by records public") == true)
        }
    }

    @Test("records survive --gc-sections in the release binary's section table")
    func releaseSectionsPresent() throws {
        let binary = try FixturePackage.products("release").appendingPathComponent("AnnotatedApp").path
        let sections = try Command.run("readelf", ["-SW", binary])
        for name in ["beehive_services", "beehive_mods", "beehive_routes", ".note.beehive"] {
            #expect(sections.contains(" \(name) "), "\(name) missing from the release binary")
        }
        let link = try Command.run("readelf", ["-p", ".comment", binary])
        #expect(!link.isEmpty)
    }
}

@Suite("Real binaries: a plugin opened with dlopen", .serialized)
struct PluginTests {
    @Test("a dlopened plugin's services appear once after rescan, and a second rescan changes nothing")
    func plugin() throws {
        let products = try FixturePackage.products("debug")
        let plugin = products.appendingPathComponent("libGreeterPlugin.so").path
        let run = try ImageOpens.run(products.appendingPathComponent("PluginHost").path, [plugin])
        #expect(run.opens == [], "the host's and the plugin's records are read from memory")
        let result = Command.keyValues(run.output)
        #expect(result["before"] == "0")
        #expect(result["resolveBefore"] == "missing")
        #expect(result["firstRescan"] == "services:1,modules:1,sections:2")
        #expect(result["after"] == "1")
        #expect(result["secondRescan"] == "services:0,modules:0,sections:0")
        #expect(result["afterSecond"] == "1")
        #expect(result["greet"] == "plugin says hello to host")
        // The kernel's path: absolute, symbolic links resolved (the products folder is a link).
        #expect(result["sourceImage"] == URL(fileURLWithPath: plugin).resolvingSymlinksInPath().path)
        #expect(result["modules"] == "GreeterPlugin.GreeterModule")
        #expect(result["byNameBefore"] == "unknownType")
        #expect(
            result["byNameAfterLoad"] == "plugin says hello to by name",
            "a type a plugin brings resolves once it is loaded")
        #expect(result["diagnostics"] == "1", "the one unknownType before the plugin was loaded")
        // The startup scan, the shared hive's first drain, then two rescans; the last returned at once.
        #expect(result["scans"]?.hasPrefix("4,") == true)
    }
}

extension PluginTests {
    @Test(
        "as an unprivileged user (who may not open /proc/self/map_files), plugins are read by path, checked by notes",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func pluginUnprivileged() throws {
        let products = try FixturePackage.products("debug")
        let plugin = products.appendingPathComponent("libGreeterPlugin.so").path
        let host = products.appendingPathComponent("PluginHost").path
        let result = Command.keyValues(
            try Command.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", host, plugin]))
        #expect(result["firstRescan"] == "services:1,modules:1,sections:2")
        #expect(result["greet"] == "plugin says hello to host")
        #expect(result["sourceImage"] == URL(fileURLWithPath: plugin).resolvingSymlinksInPath().path)
        #expect(result["diagnostics"] == "1", "the one unknownType before the plugin was loaded")
    }
}

@Suite("Real binaries: C compilers and linkers with --gc-sections")
struct LinkerTests {
    struct Toolchain: Sendable, CustomStringConvertible {
        let compiler: String
        let linker: String
        var description: String { "\(compiler) + \(linker)" }
    }

    static let toolchains = ["clang", "gcc"].flatMap { cc in
        ["bfd", "gold", "lld"].map { Toolchain(compiler: cc, linker: $0) }
    }

    @Test(
        "every record survives an optimised link with --gc-sections and is found by the scanner", arguments: toolchains)
    func survives(_ toolchain: Toolchain) throws {
        let fixture = FixturePackage.path.appendingPathComponent("CLinkers")
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("beehive-linker-\(toolchain.compiler)-\(toolchain.linker)-\(getpid())").path
        let repository = Command.repository.path
        try Command.run(
            toolchain.compiler,
            [
                "-O2", "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections", "-fuse-ld=\(toolchain.linker)",
            ] + ScannerSources.includeFlags(in: repository) + ["main.c", "records_a.c", "records_b.c"]
                + ScannerSources.files(in: repository) + ["-lelf", "-o", output], in: fixture)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let lines = Set(try Command.run(output, []).split(separator: "\n").map(String.init))
        #expect(
            lines == [
                #"beehive_services {"service":"App.A","impl":"App.AImpl","file":"records_a.c","line":2}"#,
                #"beehive_services {"service":"App.A","impl":"App.AFast","name":"fast","file":"records_a.c","line":3}"#,
                #"beehive_services {"service":"App.B","impl":"App.BImpl","file":"records_b.c","line":3}"#,
                #"beehive_mods {"module":"App.ModuleA","level":"basic","priority":5,"async":true,"file":"records_a.c","line":4}"#,
                #"beehive_mods {"module":"App.ModuleB","file":"records_b.c","line":4}"#,
                #"beehive_routes {"route":"app://b/:id","handler":"App.BRoute","file":"records_b.c","line":5}"#,
            ])
    }
}

@Suite("Real binaries: a plugin of records closed with dlclose", .serialized)
struct UnloadTests {
    @Test("after dlclose and rescan, the plugin's registrations are withdrawn with a warning naming the image")
    func unload() throws {
        let products = try FixturePackage.products("debug")
        let plugin = products.appendingPathComponent("libCRecordsPlugin.so").path
        let result = Command.keyValues(try Command.run(products.appendingPathComponent("UnloadHost").path, [plugin]))
        #expect(result["before"] == "0")
        #expect(result["opened"] == "services:2,modules:1,unloaded:0")
        #expect(result["loaded"] == "2")
        #expect(result["modules"] == "Payments.PaymentsModule")
        #expect(result["closed"] == "services:0,modules:0,unloaded:1")
        #expect(result["after"] == "0")
        #expect(result["modulesAfter"] == "0")
        let mapped = URL(fileURLWithPath: plugin).resolvingSymlinksInPath().path
        #expect(
            result["warning"] == "warning image \(mapped): the image was unloaded; its 3 registrations were withdrawn")
    }
}
