import Foundation
import Testing

@Suite("beehive migrate: both forms of BHService.plist, and BeeHive.plist's URLGlobalScheme")
struct MigrateCompatibilityTests {
    /// BHService.plist as BeeHive's README shows it: a dictionary {protocol: class}.
    static let dictionaryServices = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>App.HomeServiceProtocol</key><string>App.HomeService</string>
            <key>App.UserTrackServiceProtocol</key><string>App.UserTrackService</string>
        </dict>
        </plist>
        """

    /// BeeHive.plist with BHRouter's URLGlobalScheme beside the modules.
    static let modulesWithScheme = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
            <key>URLGlobalScheme</key><string>shop</string>
            <key>moduleClasses</key>
            <array><dict><key>moduleClass</key><string>App.HomeModule</string></dict></array>
        </dict>
        </plist>
        """

    private func file(_ name: String, _ text: String) throws -> String {
        let path = try Workbench.shared.get().path(name)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test("the dictionary form {protocol: class} becomes BH_SERVICE lines, in file order")
    func dictionaryForm() throws {
        let services = try file("BHService-dictionary.plist", Self.dictionaryServices)
        let output = try Tool.beehive(["migrate", services])
        #expect(output.status == 0, "\(output)")
        #expect(output.stderr.isEmpty)
        let declarations = output.stdout.split(separator: "\n").filter { $0.hasPrefix("BH_") }
        #expect(
            declarations == [
                "BH_SERVICE(App.HomeServiceProtocol, App.HomeService)",
                "BH_SERVICE(App.UserTrackServiceProtocol, App.UserTrackService)",
            ])
    }

    @Test("URLGlobalScheme becomes a comment with the Swift line that sets it; the file still compiles")
    func globalScheme() throws {
        let bench = try Workbench.shared.get()
        let services = try file("BHService-scheme.plist", Self.dictionaryServices)
        let modules = try file("BeeHive-scheme.plist", Self.modulesWithScheme)
        let output = try Tool.beehive(["migrate", services, modules])
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.contains("sets URLGlobalScheme = shop"))
        #expect(output.stdout.contains(#"Router.setGlobalScheme("shop")"#))
        #expect(output.stdout.contains("BH_MODULE(App.HomeModule, normal, 0)"))
        let c = try file("migrated-scheme.c", output.stdout)
        try Tool.succeed(
            "cc",
            [
                "-c", "-Wall", "-Werror",
                "-I" + Tool.repository.appendingPathComponent("CSupport/CBeeHive/include").path,
                c, "-o", bench.path("migrated-scheme.o"),
            ])
    }

    @Test("a BeeHive.plist without URLGlobalScheme adds nothing; one whose value is not a string is refused")
    func noOrBadScheme() throws {
        let services = try file("BHService-noscheme.plist", Self.dictionaryServices)
        let plain = try file(
            "BeeHive-noscheme.plist",
            #"<?xml version="1.0"?><plist version="1.0"><dict><key>moduleClasses</key><array/></dict></plist>"#)
        let output = try Tool.beehive(["migrate", services, plain])
        #expect(output.status == 0, "\(output)")
        #expect(!output.stdout.contains("URLGlobalScheme"))
        let bad = try file(
            "BeeHive-badscheme.plist",
            #"<?xml version="1.0"?><plist version="1.0"><dict><key>URLGlobalScheme</key><integer>3</integer>"#
                + #"<key>moduleClasses</key><array/></dict></plist>"#)
        let refused = try Tool.beehive(["migrate", services, bad])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("expected a non-empty string under \"URLGlobalScheme\"; found 3"))
    }
}
