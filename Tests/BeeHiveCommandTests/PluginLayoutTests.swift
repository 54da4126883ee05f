import BeeHiveTestSupport
import Foundation
import Testing

@Suite("beehive check: a host with its plugins, as the loader would refuse them")
struct PluginLayoutTests {
    let bench: Workbench

    init() throws { bench = try Workbench.shared.get() }

    /// The findings with `code`, one line each.
    private func lines(_ output: Tool.Output, code: String) -> [String] {
        output.stdout.split(separator: "\n").map(String.init).filter { $0.hasSuffix("[\(code)]") }
    }

    /// The paths of the debug fixture products `names`.
    private func fixture(_ names: [String]) throws -> [String] {
        let products = try FixturePackage.products("debug")
        return names.map { products.appendingPathComponent($0).path }
    }

    // MARK: - The good layout

    @Test("host, protocols' shared library and a plugin that links it: no problems")
    func goodLayout() throws {
        let files = ["greeterhost", "libAPI.so", "libhello.so"].map(bench.path)
        let output = try Tool.beehive(["check"] + files)
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.contains("checked 1 record in 3 files: no problems"), "\(output)")
    }

    @Test("host, libBeeHiveDynamic.so, the protocols' library and a plugin built with BeeHiveDynamic: no problems")
    func goodFixtureLayout() throws {
        let files = try fixture(["HotPluginHost", "libBeeHiveDynamic.so", "libPluginAPI.so", "libHotGreeterV1.so"])
        let output = try Tool.beehive(["check"] + files)
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.contains("in 4 files: no problems"), "\(output)")
    }

    // MARK: - A second BeeHive

    @Test("a plugin that links the static BeeHive product carries a second BeeHive: an error naming it and the fix")
    func secondBeeHive() throws {
        let files = try fixture([
            "HotPluginHost", "libBeeHiveDynamic.so", "libPluginAPI.so", "libDoubleBeeHivePlugin.so",
        ])
        let output = try Tool.beehive(["check"] + files)
        #expect(output.status == 1, "\(output)")
        let found = lines(output, code: "secondBeeHive")
        #expect(found.count == 1, "\(output)")
        let line = try #require(found.first)
        #expect(line.hasPrefix("\(files[3]): error: expected this file to use the host's BeeHive (from \(files[1]))"))
        #expect(line.contains("defines beehive_core_runtime_marker itself (at .text+0x"), "\(line)")
        #expect(
            line.contains(
                "link the plugin with the BeeHiveDynamic product only, not BeeHive, BeeHiveMacros or the other static "
                    + "products"))
        // Without libBeeHiveDynamic.so among the files: a plugin with records never holds the host's BeeHive.
        let alone = try Tool.beehive(["check", files[0], files[3]])
        #expect(alone.status == 1, "\(alone)")
        #expect(lines(alone, code: "secondBeeHive").count == 1, "\(alone)")
    }

    // MARK: - A second copy of the protocols' module

    @Test("a plugin that links its own copy of the protocols' module: an error naming both files and the fix")
    func secondProtocolCopy() throws {
        let copy = bench.path("libhello-copy.so")
        let api = bench.path("libAPI.so")
        // In either order, the copy is the plugin's, not the shared library's (which has no records).
        for files in [[bench.path("greeterhost"), api, copy], [copy, api]] {
            let output = try Tool.beehive(["check"] + files)
            #expect(output.status == 1, "\(output)")
            let found = lines(output, code: "secondProtocolCopy")
            #expect(found.count == 1, "\(output)")
            let line = try #require(found.first)
            #expect(line.hasPrefix("\(copy): error: expected protocol API.Greeter"), "\(line)")
            #expect(line.contains("(\(api) defines it)"), "\(line)")
            #expect(
                line.contains("link the protocols' module as a shared library that the host and the plugin both load"))
        }
    }

    // MARK: - Alternatives

    @Test("two versions of a plugin given as plain files declare the same service twice")
    func versionsAreDuplicates() throws {
        let output = try Tool.beehive([
            "check", bench.path("greeterhost"), bench.path("libAPI.so"), bench.path("libhello.so"),
            bench.path("libhello-v2.so"),
        ])
        #expect(output.status == 1, "\(output)")
        #expect(lines(output, code: "duplicateRegistration").count == 1, "\(output)")
    }

    @Test("versions given with --alternatives are each checked with the host, not with each other")
    func alternatives() throws {
        let output = try Tool.beehive([
            "check", bench.path("greeterhost"), bench.path("libAPI.so"), "--alternatives",
            "\(bench.path("libhello.so")),\(bench.path("libhello-v2.so"))",
        ])
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.contains("checked 2 records in 4 files: no problems"), "\(output)")

        // Given as files too, in another spelling: one file each, not two.
        let respelled = try Tool.beehive([
            "check", bench.path("greeterhost"), bench.path("libAPI.so"), bench.path("libhello.so"), "--alternatives",
            "\(bench.folder.path)/./libhello.so,\(bench.path("libhello-v2.so"))",
        ])
        #expect(respelled.status == 0, "\(respelled)")
        #expect(respelled.stdout.contains("checked 2 records in 4 files: no problems"), "\(respelled)")
    }

    @Test("a file that is no alternative of them still duplicates each alternative; and each is checked alone")
    func alternativesAndOthers() throws {
        let v1 = bench.path("libhello.so")
        let v2 = bench.path("libhello-v2.so")
        let copy = bench.path("libhello-copy.so")
        let output = try Tool.beehive([
            "check", bench.path("greeterhost"), bench.path("libAPI.so"), copy, "--alternatives", "\(v1),\(v2)",
        ])
        #expect(output.status == 1, "\(output)")
        let duplicates = lines(output, code: "duplicateRegistration")
        #expect(duplicates.count == 2, "\(output)")
        #expect(duplicates.contains { $0.hasPrefix("\(v1): ") && $0.contains(" at \(copy): ") }, "\(output)")
        #expect(duplicates.contains { $0.hasPrefix("\(v2): ") && $0.contains(" at \(copy): ") }, "\(output)")
        // The plugin with its copy of the protocols' module is still refused.
        #expect(lines(output, code: "secondProtocolCopy").count == 1, "\(output)")
    }

    @Test("a type that only another alternative defines is missing: the program that loads this one lacks it")
    func alternativesDoNotLendTypes() throws {
        let v1 = bench.path("libhello.so")
        let stale = bench.path("libhello-v2-stale.so")
        let host = [bench.path("greeterhost"), bench.path("libAPI.so")]
        let output = try Tool.beehive(["check"] + host + ["--alternatives", "\(v1),\(stale)"])
        #expect(output.status == 1, "\(output)")
        let missing = lines(output, code: "missingType")
        #expect(missing.count == 1, "\(output)")
        let line = try #require(missing.first)
        #expect(line.hasPrefix("\(stale): beehive_services+0x"), "\(line)")
        #expect(line.contains("expected type HelloPlugin.Hello (the implementation of API.Greeter)"), "\(line)")
    }

    @Test("the fixture's two versions of a Swift plugin, as alternatives: no problems")
    func fixtureAlternatives() throws {
        let files = try fixture([
            "HotPluginHost", "libBeeHiveDynamic.so", "libPluginAPI.so", "libHotGreeterV1.so", "libHotGreeterV2.so",
        ])
        let together = try Tool.beehive(["check"] + files)
        #expect(together.status == 1, "\(together)")
        // Two services (one named) and a route; the modules have names of their own.
        #expect(lines(together, code: "duplicateRegistration").count == 3, "\(together)")
        let output = try Tool.beehive(["check"] + files[0..<3] + ["--alternatives", "\(files[3]),\(files[4])"])
        #expect(output.status == 0, "\(output)")
        #expect(lines(output, code: "duplicateRegistration").isEmpty, "\(output)")
    }

    @Test("a group of fewer than two files, or with an empty name, is a usage error")
    func badAlternatives() throws {
        for group in [bench.path("libhello.so"), "\(bench.path("libhello.so")),", "\(bench.path("libhello.so")),,x"] {
            let output = try Tool.beehive(["check", bench.path("greeterhost"), "--alternatives", group])
            #expect(output.status == 2, "\(group): \(output)")
            #expect(output.stderr.contains("expected --alternatives to list"), "\(group): \(output)")
        }
    }
}
