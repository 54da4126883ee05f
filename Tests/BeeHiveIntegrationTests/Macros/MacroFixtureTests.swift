import BeeHive
import BeeHiveTestSupport
import Foundation
import Testing

@Suite("Real binaries: services, modules and routes annotated with the Swift macros", .serialized)
struct MacroFixtureTests {
    @Test(
        "every Swift-annotated type and the C record beside them register and resolve (builds and runs MacroApp)",
        arguments: ["debug", "release"])
    func macroApp(configuration: String) throws {
        let products = try MacroFixturePackage.build(configuration).products
        let run = try ImageOpens.run(products.appendingPathComponent("MacroApp").path)
        #expect(run.opens == [], "Swift records and C records are read from memory: no image file is opened")
        let result = Command.keyValues(run.output)
        #expect(result["registrations"] == "11")
        #expect(
            result["services"]
                == [
                    "MacroApp.Counter=MacroApp.InternalCounter",
                    "MacroApp.Greeting=MacroApp.CAnnotatedGreeter:c",
                    "MacroApp.Greeting=MacroApp.FormalGreeter:formal",
                    "MacroApp.Greeting=MacroApp.PublicGreeter",
                    "MacroApp.Storage=MacroApp.InternalStorage",
                    "MacroApp.Storage=MacroApp.Stores.NestedStorage:nested",
                    "MacroServices.Clock=MacroApp.FixedClock:fixed",
                    "MacroServices.Clock=MacroServices.SystemClock",
                    "MacroServices.Clock=MacroServices.SystemClock:freestanding",
                    "MacroServices.Thermometer=MacroApp.OutdoorThermometer:outdoor",
                    "MacroServices.Thermometer=MacroServices.LabThermometer",
                ].joined(separator: ","))
        #expect(result["greet"] == "hello", "a public class")
        #expect(result["greetFormal"] == "good day", "a named service")
        #expect(result["greetC"] == "hello from C", "a C record in the same image")
        #expect(result["counter"] == "1,2", "an internal class, a singleton")
        #expect(result["storage"] == "internal struct", "an internal struct survives \(configuration)")
        #expect(result["nested"] == "nested struct", "a nested type")
        #expect(result["clock"] == "1000", "a service annotated in another module")
        #expect(result["clockFixed"] == "42", "another module's service implemented here")
        #expect(result["clockFreestanding"] == "1000", "#BeeHiveService of another module's type")
        #expect(result["thermometer"] == "21", "a service asked for by its key (@BeeHiveServiceKey)")
        #expect(result["thermometerOutdoor"] == "-3", "by its key, implemented in another module, under a name")
        #expect(result["thermometerByType"] == "21", "a keyed service asked for by its type")
        #expect(result["thermometerShared"] == "true", "one singleton, asked for by key and by type")
        #expect(result["modules"] == "MacroApp.NetworkModule:0:100:true")
        #expect(result["routes"] == "app://user/:id=MacroApp.UserRoute")
        #expect(result["diagnostics"] == "0", "\(result["diagnosticMessages"] ?? "")")
        #expect(result["validate"] == "ok")
    }

    @Test("a release build with --gc-sections keeps the Swift records and their JSON, which beehive check reads")
    func releaseSections() throws {
        let build = try MacroFixturePackage.build("release")
        let link = build.linkArguments(of: "MacroApp")
        #expect(link.contains("--gc-sections"), "the link of MacroApp: \(link)")
        let binary = build.products.appendingPathComponent("MacroApp").path
        let sections = try Command.run("readelf", ["-SW", binary])
        let swift = ["swift5_tests", "beehive_swift_services", "beehive_swift_mods", "beehive_swift_routes"]
        for name in swift + ["beehive_services", ".note.beehive"] {
            #expect(sections.contains(" \(name) "), "\(name) missing from the release binary")
        }
        let notes = try Command.run("readelf", ["-nW", binary])
        #expect(notes.contains("BeeHive"), "\(notes)")
        // The tool reads the Swift records' JSON copies, which no note names, without calling that a mistake.
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("beehive").path
        let check = try Command.run(tool, ["check", binary])
        #expect(check.contains("checked 13 records in 1 file: no problems"), "\(check)")
        let inspect = try Command.run(tool, ["inspect", binary])
        #expect(inspect.contains("beehive_swift_services+0x0"), "\(inspect)")
    }

    @Test("MacroApp's report from its file equals its hive's report (Swift records read from their JSON copies)")
    func offlineReport() throws {
        let app = try product("MacroApp")
        let live = try JSONDecoder().decode(HiveReport.self, from: Data(try Command.run(app, ["--report"]).utf8))
        let offline = try Self.offlineReport([app])
        #expect(offline.services.count == 11, "\(offline.services)")
        #expect(offline.services.allSatisfy { $0.state == .declared && $0.source.image == app })
        #expect(offline.services.contains { $0.source.section == "beehive_swift_services" })
        #expect(live.services.contains { $0.source.section == "swift5_tests" })
        #expect(offline.modules.map(\.module) == ["MacroApp.NetworkModule"])
        #expect(offline.routes.map(\.pattern) == ["app://user/:id"])
        #expect(offline.fromRecords == live.fromRecords)
    }

    @Test("a Swift-annotated host and plugin: the report from the files equals the host's after dlopen")
    func offlinePluginReport() throws {
        let files = try ["MacroPluginHost", "libMacroPlugin.so", "libPluginAPI.so", "libBeeHiveDynamic.so"].map {
            try product($0)
        }
        let output = try Command.run(files[0], [files[1], "--report"])
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("report=") }, "\(output)")
        let live = try JSONDecoder().decode(HiveReport.self, from: Data(line.dropFirst("report=".count).utf8))
        let offline = try Self.offlineReport(files)
        #expect(
            Set(offline.services.map(\.implementation)) == [
                "MacroPluginHost.HostGreeter", "MacroPlugin.MacroPluginGreeter",
            ])
        #expect(offline.fromRecords == live.fromRecords)
    }

    /// The real path of a debug product of Tests/MacroFixtures: a process names its images so.
    private func product(_ name: String) throws -> String {
        try MacroFixturePackage.build("debug").products.appendingPathComponent(name).resolvingSymlinksInPath().path
    }

    /// `beehive inspect --format report` of `files`, decoded.
    private static func offlineReport(_ files: [String]) throws -> HiveReport {
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("beehive").path
        return try JSONDecoder().decode(
            HiveReport.self, from: Data(try Command.run(tool, ["inspect", "--format", "report"] + files).utf8))
    }

    @Test("a host and a plugin annotated in Swift only: the host at first use, the plugin after dlopen and rescan")
    func plugin() throws {
        let products = try MacroFixturePackage.build("debug").products
        let plugin = products.appendingPathComponent("libMacroPlugin.so").path
        let host = products.appendingPathComponent("MacroPluginHost").path
        let run = try ImageOpens.run(host, [plugin])
        #expect(run.opens == [], "the plugin's Swift records are read from memory")
        let result = Command.keyValues(run.output)
        #expect(result["host"] == "the host greets itself", "a program annotated in Swift only finds its records")
        #expect(result["before"] == "serviceNotFound")
        #expect(result["rescan"] == "services:1,modules:0")
        #expect(result["after"] == "macro plugin says hello to host")
        #expect(result["implementation"] == "MacroPlugin.MacroPluginGreeter")
        #expect(result["diagnostics"] == "0")
    }

    @Test("plugins built against another API version (@BeeHiveAPI) are refused before they join, offline and live")
    func apiVersions() throws {
        let products = try MacroFixturePackage.build("debug").products
        func library(_ name: String) -> String { products.appendingPathComponent("lib\(name).so").path }
        let plugins = ["ShopPricesLegacy", "ShopPricesNewer", "ShopPrices", "ShopPricesUnversioned"].map(library)
        let output = try Command.run(products.appendingPathComponent("ShopHost").path, plugins)
        let result = Command.keyValues(output)
        #expect(result["libShopPricesLegacy.so"] == "refused:incompatibleAPIVersion", "\(output)")
        #expect(result["libShopPricesNewer.so"] == "refused:incompatibleAPIVersion", "\(output)")
        // Neither refusal changes what later calls accept.
        #expect(result["libShopPrices.so"] == "loaded:1", "\(output)")
        #expect(result["libShopPricesUnversioned.so"] == "loaded:1", "\(output)")
        #expect(result["unversioned"] == "1", "an unversioned plugin joins with a warning: \(output)")
        #expect(result["implementation"] == "ShopPrices.CurrentPrices")
        #expect(result["apiVersion"] == "2.1.0", "the version the plugin was built against")
        #expect(result["price"] == "30")
        #expect(result["priceByKey"] == "30", "by the key ShopAPI declares, registered by a plugin: \(output)")
        let problems = output.split(separator: "\n").filter { $0.hasPrefix("problem=") }
        #expect(
            problems.contains {
                $0.contains("ShopAPI.PriceService built against its API 2.0 through 2.1.x")
                    && $0.contains("ShopPricesLegacy.LegacyPrices was built against 1.4.0")
                    && $0.contains("ShopAPI/PriceService.swift:5")
            }, "names the service, the plugin's version, the host's range and where it is declared: \(problems)")
        #expect(problems.contains { $0.contains("ShopPricesNewer.NewerPrices was built against 2.3.0") })

        // Offline: the same verdicts from the files alone.
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("beehive").path
        let host = [products.appendingPathComponent("ShopHost").path, library("ShopAPI")]
        for (plugin, version) in [("ShopPricesLegacy", "1.4.0"), ("ShopPricesNewer", "2.3.0")] {
            let check = try #require(throws: Command.Failure.self) {
                try Command.run(tool, ["check"] + host + [library(plugin)])
            }
            #expect(check.description.contains("incompatibleAPIVersion"), "\(check)")
            #expect(check.description.contains("built against \(version)"), "\(check)")
        }
        let good = try Command.run(tool, ["check"] + host + [library("ShopPrices")])
        #expect(!good.contains("incompatibleAPIVersion"), "\(good)")
        let unversioned = try Command.run(tool, ["check"] + host + [library("ShopPricesUnversioned")])
        #expect(unversioned.contains("unversionedImplementation"), "\(unversioned)")
        // What each file declares and was built against, as inspect shows it.
        let inspect = try Command.run(tool, ["inspect", library("ShopAPI"), library("ShopPricesLegacy")])
        #expect(inspect.contains("declares the API of ShopAPI.PriceService, version 2.1.0"), "\(inspect)")
        #expect(inspect.contains("built against the API of ShopAPI.PriceService, version 1.4.0"), "\(inspect)")
    }
}

extension HiveReport {
    /// The report as a process and `beehive inspect --format report` both tell it (Docs/Report.md, "Read from
    /// files"): registrations from records only, each `declared` (or `waiting`), and a Swift macro record's source
    /// without where each side read it (the process its `swift5_tests` entry, the tool its JSON copy): the record is
    /// named by its kind, `file:line` and image.
    var fromRecords: HiveReport {
        func common(_ source: Source) -> Source {
            guard let section = source.section, section == "swift5_tests" || section.hasPrefix("beehive_swift_") else {
                return source
            }
            var source = source
            source.section = nil
            source.offset = nil
            source.description = ""
            return source
        }
        var result = self
        result.services = services.filter { $0.source.kind != "code" }.map { service in
            var service = service
            if service.state == .bound || service.state == .created { service.state = .declared }
            service.source = common(service.source)
            return service
        }
        result.modules = modules.filter { $0.source.kind != "code" }.map { module in
            var module = module
            module.source = common(module.source)
            return module
        }
        result.routes = routes.map { route in
            var route = route
            route.source = common(route.source)
            return route
        }
        result.problems = problems.filter { $0.source != nil && $0.source?.kind != "code" }
        return result
    }
}
