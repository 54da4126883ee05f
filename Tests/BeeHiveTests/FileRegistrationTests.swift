import Foundation
import Testing

@testable import BeeHive

@Suite("Registration from BeeHive.plist, BHService.plist and JSON")
struct FileRegistrationTests {
    /// Writes `contents` to a new temporary file; returns its path.
    func file(_ name: String, _ contents: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    static let servicePlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <array>
            <dict><key>service</key><string>BeeHiveTests.Storage</string><key>impl</key><string>BeeHiveTests.MemoryStorage</string></dict>
            <dict><key>service</key><string>BeeHiveTests.Storage</string><key>impl</key><string>BeeHiveTests.SingletonStorage</string><key>name</key><string>shared</string></dict>
        </array>
        </plist>
        """

    @Test("BHService.plist (XML) registers every entry with its file and index")
    func servicePlistLoads() throws {
        let hive = Hive()
        let path = try file("BHService.plist", Self.servicePlist)
        let problems = try hive.loadServices(from: path)
        #expect(problems.isEmpty)
        #expect(try hive.createService(Storage.self).label == "memory")
        #expect(try hive.createService(Storage.self, name: "shared").label == "singleton")
        let registration = try #require(hive.registration(for: "BeeHiveTests.Storage", name: "shared"))
        #expect(registration.source.filePath == path && registration.source.entryIndex == 1)
    }

    @Test("the same list as JSON registers the same services")
    func serviceJSONLoads() throws {
        let hive = Hive()
        let path = try file(
            "services.json",
            #"[{"service":"BeeHiveTests.Storage","impl":"BeeHiveTests.MemoryStorage"},"#
                + #"{"service":"BeeHiveTests.Storage","impl":"BeeHiveTests.SingletonStorage","name":"shared"}]"#)
        try hive.loadServices(from: path)
        #expect(
            hive.serviceRegistrations.map(\.implementation) == [
                "BeeHiveTests.MemoryStorage", "BeeHiveTests.SingletonStorage",
            ])
    }

    @Test("BeeHive.plist declares modules with level and priority, as numbers or strings")
    func modulePlistLoads() throws {
        let hive = Hive()
        let path = try file(
            "BeeHive.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
                <key>moduleClasses</key>
                <array>
                    <dict><key>moduleClass</key><string>App.HomeModule</string><key>moduleLevel</key><integer>1</integer><key>modulePriority</key><string>600</string></dict>
                    <dict><key>moduleClass</key><string>App.NetworkModule</string><key>moduleLevel</key><integer>0</integer><key>modulePriority</key><integer>100</integer><key>moduleAsync</key><true/></dict>
                    <dict><key>moduleClass</key><string>App.ShellModule</string><key>moduleLevel</key><string>application</string></dict>
                </array>
            </dict>
            </plist>
            """)
        #expect(try hive.loadModules(from: path).isEmpty)
        let modules = hive.moduleDeclarations
        #expect(modules.map(\.name) == ["App.HomeModule", "App.NetworkModule", "App.ShellModule"])
        #expect(modules[0].level == .normal && modules[0].priority == 600)
        #expect(modules[1].level == .basic && modules[1].priority == 100 && modules[1].isAsync)
        #expect(modules[2].level == .application)
    }

    @Test("modules as JSON")
    func moduleJSONLoads() throws {
        let hive = Hive()
        let path = try file(
            "BeeHive.json", #"{"moduleClasses":[{"moduleClass":"App.A","moduleLevel":0,"modulePriority":5}]}"#)
        try hive.loadModules(from: path)
        #expect(hive.moduleDeclarations.first?.priority == 5)
    }

    struct BadEntry: Sendable, CustomStringConvertible {
        let json: String
        let message: String
        var description: String { json }
    }

    @Test(
        "a bad entry is reported with file and index; the good entries around it are registered",
        arguments: [
            BadEntry(json: #"{"service":"BeeHiveTests.Other"}"#, message: #"expected a "impl" key"#),
            BadEntry(
                json: #"{"service":"BeeHiveTests.Other","impl":42}"#,
                message: #"expected a non-empty string for "impl"; found 42"#),
            BadEntry(
                json: #""just a string""#,
                message: "expected a dictionary {service, impl[, name, rank, properties]}; found a string"),
            BadEntry(json: #"{"service":"A","impl":"B","colour":"red"}"#, message: #"found "colour""#),
        ])
    func badEntry(_ bad: BadEntry) throws {
        let hive = Hive()
        let path = try file(
            "services.json",
            #"[{"service":"BeeHiveTests.Storage","impl":"BeeHiveTests.MemoryStorage"},"# + bad.json
                + #",{"service":"BeeHiveTests.Storage","impl":"BeeHiveTests.SingletonStorage","name":"last"}]"#)
        let problems = try hive.loadServices(from: path)
        #expect(problems.count == 1)
        let problem = try #require(problems.first)
        #expect(problem.code == .malformedEntry)
        #expect(problem.source == .file(path, index: 1))
        #expect(problem.message.contains(bad.message), "\(problem.message)")
        #expect(hive.serviceRegistrations.count == 2)
        #expect(hive.diagnostics == problems)
    }

    @Test("strict mode throws after registering the good entries")
    func strictFile() throws {
        let hive = Hive(options: .init(isStrict: true))
        let path = try file(
            "services.json",
            #"[{"service":"A"},{"service":"BeeHiveTests.Storage","impl":"BeeHiveTests.MemoryStorage"}]"#)
        let error = #expect(throws: HiveError.self) { try hive.loadServices(from: path) }
        #expect(error?.code == .malformedEntry)
        #expect(hive.serviceRegistrations.count == 1)
    }

    @Test("a missing file is a clear error that names it")
    func missingFile() {
        let hive = Hive()
        let error = #expect(throws: HiveError.self) { try hive.loadServices(from: "/nonexistent/BHService.plist") }
        #expect(error?.code == .fileNotFound)
        #expect(error?.source?.filePath == "/nonexistent/BHService.plist")
        #expect(hive.diagnostics.first?.code == .fileNotFound)
    }

    @Test(
        "a file that is neither plist nor JSON is a clear error",
        arguments: ["<plist><array><dict>", "[{\"service\": ", "not a config"])
    func malformedFile(_ contents: String) throws {
        let hive = Hive()
        let path = try file("broken", contents)
        let error = #expect(throws: HiveError.self) { try hive.loadServices(from: path) }
        #expect(error?.code == .malformedFile)
        #expect(error?.message.contains("expected an XML or binary property list or JSON") == true)
    }

    @Test("a BeeHive.plist without moduleClasses says what it expected")
    func wrongShape() throws {
        let hive = Hive()
        let path = try file("BeeHive.json", #"{"modules":[]}"#)
        let error = #expect(throws: HiveError.self) { try hive.loadModules(from: path) }
        #expect(error?.code == .malformedFile)
        #expect(error?.message.contains("moduleClasses") == true)
    }

    @Test("file, code and annotation registrations share one registry: first wins, duplicates name both")
    func mixedSources() throws {
        let hive = Hive()
        try hive.register(service: Storage.self, impl: SingletonStorage.self)
        try hive.loadServices(from: try file("BHService.plist", Self.servicePlist))
        #expect(try hive.createService(Storage.self).label == "singleton")
        let duplicate = try #require(hive.diagnostics.first { $0.code == .duplicateRegistration })
        #expect(duplicate.source?.entryIndex == 0)
        #expect(duplicate.message.contains("code BeeHiveTests/"))
    }
}
