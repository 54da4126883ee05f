import Foundation
import Testing

@Suite("beehive migrate: BeeHive plists become annotations")
struct MigrateTests {
    static let servicesPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <array>
            <dict>
                <key>service</key><string>App.UserTrackService</string><key>impl</key><string>App.Tracker</string>
            </dict>
            <dict>
                <key>service</key><string>App.Cache</string><key>impl</key><string>App.DiskCache</string>
                <key>name</key><string>disk</string>
            </dict>
        </array>
        </plist>
        """

    static let modulesPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
            <key>moduleClasses</key>
            <array>
                <dict>
                    <key>moduleClass</key><string>App.NetworkModule</string>
                    <key>moduleLevel</key><integer>0</integer>
                    <key>modulePriority</key><string>100</string>
                    <key>moduleAsync</key><true/>
                </dict>
                <dict><key>moduleClass</key><string>App.HomeModule</string></dict>
                <dict>
                    <key>moduleClass</key><string>App.ShellModule</string>
                    <key>moduleLevel</key><integer>2</integer>
                    <key>modulePriority</key><integer>-3</integer>
                </dict>
                <dict>
                    <key>moduleClass</key><string>App.LateModule</string>
                    <key>moduleLevel</key><integer>7</integer>
                </dict>
            </array>
        </dict>
        </plist>
        """

    /// Writes `text` into the workbench folder; returns its path.
    private func file(_ name: String, _ text: String) throws -> String {
        let path = try Workbench.shared.get().path(name)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test("services and modules become BH_SERVICE, BH_NAMED_SERVICE and BH_MODULE lines, levels and priorities kept")
    func lines() throws {
        let services = try file("BHService.plist", Self.servicesPlist)
        let modules = try file("BeeHive.plist", Self.modulesPlist)
        let output = try Tool.beehive(["migrate", services, modules])
        #expect(output.status == 0, "\(output)")
        #expect(output.stderr.isEmpty)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("#include <beehive.h>"))
        #expect(output.stdout.contains("the Swift macros (BeeHiveMacros) go on the types instead"))
        let declarations = lines.filter { $0.hasPrefix("BH_") }
        #expect(
            declarations == [
                "BH_SERVICE(App.UserTrackService, App.Tracker)",
                "BH_NAMED_SERVICE(App.Cache, App.DiskCache, disk)",
                "BH_MODULE(App.NetworkModule, basic, 100, true)",
                "BH_MODULE(App.HomeModule, normal, 0)",
                "BH_MODULE(App.ShellModule, application, -3)",
                #"BH_RECORD(BH_MODULES_SECTION, "{\"module\":\"App.LateModule\",\"level\":7,"#
                    + #"\"priority\":0,\"async\":false}")"#,
            ])
    }

    @Test("the printed file compiles, and inspect reads back the same services and modules")
    func roundTrip() throws {
        let bench = try Workbench.shared.get()
        let services = try file("BHService-roundtrip.plist", Self.servicesPlist)
        let modules = try file("BeeHive-roundtrip.plist", Self.modulesPlist)
        let source = try Tool.beehive(["migrate", services, modules]).stdout
        let c = try file("migrated.c", source)
        try Tool.succeed(
            "cc",
            [
                "-c", "-Wall", "-Werror",
                "-I" + Tool.repository.appendingPathComponent("CSupport/CBeeHive/include").path,
                c, "-o", bench.path("migrated.o"),
            ])
        let (json, _) = try Tool.inspectJSON([bench.path("migrated.o")])
        let records = json.records
        #expect(records.allSatisfy { $0.error == nil })
        #expect(
            records.map { "\($0.service ?? $0.module ?? "") \($0.implementation ?? "") \($0.name ?? "")" } == [
                "App.UserTrackService App.Tracker ", "App.Cache App.DiskCache disk", "App.NetworkModule  ",
                "App.HomeModule  ", "App.ShellModule  ", "App.LateModule  ",
            ])
        #expect(records.compactMap(\.level) == [0, 1, 2, 7])
        #expect(records.compactMap(\.priority) == [100, 0, -3, 0])
        #expect(records.compactMap(\.async) == [true, false, false, false])
    }

    @Test("the demo's BHService.plist")
    func demoPlist() throws {
        let output = try Tool.beehive(
            ["migrate", Tool.repository.appendingPathComponent("Examples/Demo/Config/BHService.plist").path])
        #expect(output.status == 0)
        #expect(output.stdout.contains("BH_SERVICE(BeeHiveDemo.Greeter, BeeHiveDemo.CasualGreeter)\n"))
        #expect(output.stdout.contains("BH_SERVICE(BeeHiveDemo.UserTrackService, BeeHiveDemo.SilentTracker)\n"))
    }

    @Test("Objective-C names: --module qualifies them; without it they are reported with exit status 1")
    func unqualifiedNames() throws {
        let services = try file("objc.json", #"[{"service": "UserTrackService", "impl": "BHUserTracker"}]"#)
        let plain = try Tool.beehive(["migrate", services])
        #expect(plain.status == 1)
        #expect(plain.stdout.contains("BH_SERVICE(UserTrackService, BHUserTracker)"))
        #expect(plain.stderr.contains("found 2 without a module (UserTrackService, BHUserTracker): pass --module NAME"))
        let qualified = try Tool.beehive(["migrate", "--module", "App", services])
        #expect(qualified.status == 0, "\(qualified)")
        #expect(qualified.stdout.contains("BH_SERVICE(App.UserTrackService, App.BHUserTracker)"))
    }

    @Test("a bad entry is skipped and reported with its index; the good ones are printed; exit status 1")
    func badEntry() throws {
        let services = try file(
            "bad-entry.json",
            #"[{"service": "App.A", "impl": "App.AImpl"}, {"service": "App.B"}, "#
                + #"{"service": "App.C", "impl": "App.CImpl"}]"#
        )
        let output = try Tool.beehive(["migrate", services])
        #expect(output.status == 1)
        #expect(output.stdout.contains("BH_SERVICE(App.A, App.AImpl)\nBH_SERVICE(App.C, App.CImpl)\n"))
        #expect(output.stderr.contains("entry 1"), "\(output)")
        #expect(output.stderr.contains("[malformedEntry]"), "\(output)")
    }

    @Test("names the macros cannot spell are written as BH_RECORD with the JSON record")
    func unusualNames() throws {
        let services = try file("unusual.json", #"[{"service": "App.Café", "impl": "App.\"Quoted\"", "name": "a b"}]"#)
        let output = try Tool.beehive(["migrate", services])
        #expect(output.status == 0, "\(output)")
        #expect(
            output.stdout.contains(
                #"BH_RECORD(BH_SERVICES_SECTION, "{\"service\":\"App.Café\","#
                    + #"\"impl\":\"App.\\\"Quoted\\\"\",\"name\":\"a b\"}")"#
            ), "\(output)")
    }

    @Test("a file that cannot be read exits with status 2")
    func missingFile() throws {
        let output = try Tool.beehive(["migrate", "/nonexistent/BHService.plist"])
        #expect(output.status == 2)
        #expect(output.stderr.hasPrefix("beehive: "))
        #expect(output.stderr.contains("/nonexistent/BHService.plist"))
    }
}
