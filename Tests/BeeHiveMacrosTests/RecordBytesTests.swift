#if Macros
import Testing

/// What each annotation writes: one Swift record (format version 3) and the JSON copy for the tool, with file and line.
@Suite("Record bytes: what the macros write")
struct RecordBytesTests {
    /// One annotation and the record it must write.
    struct Case: Sendable, CustomTestStringConvertible {
        let source: String
        let record: String
        var freestanding = false
        var testDescription: String { record }
    }

    static let cases: [Case] = [
        Case(
            source: "@BeeHiveService(UserTrackService.self)\nstruct ConsoleTracker: UserTrackService {}",
            record:
                #"{"service":"App.UserTrackService","impl":"App.ConsoleTracker","file":"App/Tracker.swift","line":1}"#
        ),
        Case(
            source: "\n\n@BeeHiveService(Cache.self, name: \"formal\")\nfinal class C: Cache {}",
            record: #"{"service":"App.Cache","impl":"App.C","name":"formal","file":"App/Tracker.swift","line":3}"#
        ),
        Case(
            source: """
                enum Outer { enum Middle {
                    @BeeHiveService(PluginAPI.GreeterService.self, name: "a \\"quoted\\" \\\\ name")
                    struct AVeryLongImplementationNameThatGoesOnAndOnForMoreThanSixtyFourBytes: GreeterService {}
                } }
                """,
            record: #"{"service":"PluginAPI.GreeterService","impl":"App.Outer.Middle."#
                + #"AVeryLongImplementationNameThatGoesOnAndOnForMoreThanSixtyFourBytes","name":"a \"quoted\" \\ name","#
                + #""file":"App/Tracker.swift","line":2}"#
        ),
        Case(
            source: #"@BeeHiveService(Prices.self, rank: -5, properties: ["region": "eu", "tier": "a \"b\""])"#
                + "\nstruct EUPrices: Prices {}",
            record: #"{"service":"App.Prices","impl":"App.EUPrices","rank":-5,"property:region":"eu","#
                + #""property:tier":"a \"b\"","file":"App/Tracker.swift","line":1}"#
        ),
        Case(
            source: "@BeeHiveService(Grüße.self)\nstruct Straße: Grüße {}",
            record: #"{"service":"App.Grüße","impl":"App.Straße","file":"App/Tracker.swift","line":1}"#
        ),
        Case(
            source: "@BeeHiveMod\nfinal class LoginModule: HiveModule {}",
            record: #"{"module":"App.LoginModule","file":"App/Tracker.swift","line":1}"#
        ),
        Case(
            source: "@BeeHiveMod(level: .basic, priority: -100, async: true)\nfinal class NetworkModule: HiveModule {}",
            record: #"{"module":"App.NetworkModule","level":"basic","priority":-100,"async":true,"#
                + #""file":"App/Tracker.swift","line":1}"#
        ),
        Case(
            source: "@BeeHiveMod(level: 2, priority: 1_000)\nfinal class Late: HiveModule {}",
            record: #"{"module":"App.Late","level":2,"priority":1000,"file":"App/Tracker.swift","line":1}"#
        ),
        Case(
            source: "@BeeHiveRoute(\"app://user/:id\")\nstruct UserRoute: RouteHandler {}",
            record: #"{"route":"app://user/:id","handler":"App.UserRoute","file":"App/Tracker.swift","line":1}"#
        ),
        Case(
            source: "#BeeHiveService(UserTrackService.self, Storage.DiskTracker.self)",
            record:
                #"{"service":"App.UserTrackService","impl":"Storage.DiskTracker","file":"App/Tracker.swift","line":1}"#,
            freestanding: true
        ),
        Case(
            source: "#BeeHiveMod(Login.LoginModule.self, async: false)",
            record: #"{"module":"Login.LoginModule","async":false,"file":"App/Tracker.swift","line":1}"#,
            freestanding: true
        ),
        Case(
            source: "\n#BeeHiveRoute(\"app://tab\\t/~\", App.Outer.Tab.self)",
            record: #"{"route":"app://tab\t/~","handler":"App.Outer.Tab","file":"App/Tracker.swift","line":2}"#,
            freestanding: true
        ),
    ]

    @Test("each annotation writes one NUL-terminated JSON record, with file and line, for the tool", arguments: cases)
    func record(_ testCase: Case) {
        #expect(MacroExpansion.recordText(testCase.source, freestanding: testCase.freestanding) == testCase.record)
    }

    @Test("each annotation writes no image note and no typed record of format 2", arguments: cases)
    func noNote(_ testCase: Case) {
        let source = MacroExpansion.expand(testCase.source, freestanding: testCase.freestanding).source
        #expect(!source.contains(".note.beehive"), "\(source)")
        #expect(!source.contains("beehive_types"), "\(source)")
    }

    @Test("each annotation writes one Swift record: kind bhiv, version 3, an accessor, record kind, typed layout")
    func swiftRecord() throws {
        let source = MacroExpansion.expand(Self.cases[2].source).source
        #expect(source.contains(#"@section("swift5_tests") @used"#))
        #expect(source.contains("(UInt32, UInt32, BeeHive::_BeeHiveTypedRecord.Accessor, UInt, UInt) = ("), "\(source)")
        #expect(source.contains("0x6268_6976, 3,"), "\(source)")
        #expect(source.contains("}, 1, 1)"), "\(source)")
        // The accessor gives the JSON text (the same text as the tool's copy) or the typed record, by its guard.
        let json = try #require(MacroExpansion.recordText(Self.cases[2].source))
        let literal = json.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
        #expect(source.contains("BeeHive::_BeeHiveTypedRecord.write(\n"), "\(source)")
        #expect(source.contains("json: \"\(literal)\", api: _beeHiveAPIVersion("), "\(source)")
        #expect(source.contains("Service.self),\n"), "the version of the API it is built for: \(source)")
        // The accessor writes only for the copy of BeeHive that asks (the guard), and says whether it wrote.
        #expect(source.contains("to: out, type: type, hint: hint)"), "\(source)")
        // The key when the protocol declares one, else the service's type: `_beeHiveServiceKey` decides.
        let typed: String = [
            ".service(_beeHiveServiceKey(__macro_local_23BeeHiveConformanceCheckfMu_.Service.self), implementation: ",
            "App::Outer.Middle.AVeryLongImplementationNameThatGoesOnAndOnForMoreThanSixtyFourBytes.self, ",
            #"named: "App.Outer.Middle.AVeryLongImplementationNameThatGoesOnAndOnForMoreThanSixtyFourBytes", "#,
            #"serviceNamed: "PluginAPI.GreeterService", registrationName: "a \"quoted\" \\ name", "#,
            #"file: "App/Tracker.swift", line: 2, upcast: {"#,
        ].joined()
        #expect(source.contains(typed), "\(source)")
        #expect(source.contains("BeeHiveConformanceCheckfMu_.implementationOfTheService($0)"), "\(source)")
        // The one place the service is named, which the compiler checks: its module as written.
        #expect(source.contains("typealias Service = PluginAPI::GreeterService\n"), "\(source)")
        let module = MacroExpansion.expand(Self.cases[5].source).source
        #expect(module.contains("}, 2, 1)"), "\(module)")
        #expect(
            module.contains(
                #".type(App::LoginModule.self as any BeeHiveModules::HiveModule.Type, named: "App.LoginModule")"#)
        )
        let route = MacroExpansion.expand(Self.cases[8].source).source
        #expect(route.contains("}, 3, 1)"), "\(route)")
        #expect(
            route.contains(
                #".type(App::UserRoute.self as any BeeHiveRouter::RouteHandler.Type, named: "App.UserRoute")"#))
    }

    @Test("@BeeHiveAPI declares the protocol's version for its clients, and writes an API record with the JSON copy")
    func apiRecord() throws {
        let source = MacroExpansion.expand("@BeeHiveAPI(\"2.1\")\npublic protocol Prices {}").source
        // Overload resolution prefers it, in every client, to BeeHive's generic `_beeHiveAPIVersion` (which gives "").
        #expect(
            source.contains(
                "@_alwaysEmitIntoClient\npublic func _beeHiveAPIVersion(_: (any Prices).Type) -> StaticString {\n"
                    + "    \"beehive-api:App.Prices@2.1.0\"\n}"), "\(source)")
        #expect(source.contains(#"@section("beehive_swift_apis") @used"#), "\(source)")
        #expect(source.contains("}, 4, 1)"), "record kind 4: \(source)")
        let json = try #require(MacroExpansion.recordText("@BeeHiveAPI(\"2.1\")\npublic protocol Prices {}"))
        #expect(json == #"{"api":"App.Prices","version":"2.1.0","file":"App/Tracker.swift","line":1}"#)
        let internalAPI = MacroExpansion.expand("@BeeHiveAPI(\"3.0.7\")\nprotocol Prices {}").source
        #expect(internalAPI.contains("\nfunc _beeHiveAPIVersion(_: (any Prices).Type) -> StaticString {"))
        #expect(!internalAPI.contains("@_alwaysEmitIntoClient"), "an internal protocol's clients are its module")
    }

    @Test("@BeeHiveServiceKey declares the key, and the function by which its implementations' records find it")
    func serviceKey() {
        let expansion = MacroExpansion.expand("@BeeHiveServiceKey\npublic protocol Clock: Sendable {}")
        #expect(expansion.diagnostics.isEmpty, "\(expansion.diagnostics.map(\.message))")
        let source = expansion.source
        #expect(
            source.contains(
                "public enum ClockKey: BeeHive::ServiceKey {\n    public typealias Service = any Clock\n"
                    + "    public static var serviceName: String {\n        \"App.Clock\"\n    }\n}"), "\(source)")
        // Overload resolution prefers it, in every client, to BeeHive's generic `_beeHiveServiceKey`.
        #expect(
            source.contains(
                "@_alwaysEmitIntoClient\npublic func _beeHiveServiceKey(_: (any Clock).Type) -> ClockKey.Type {\n"
                    + "    ClockKey.self\n}"), "\(source)")
        #expect(!source.contains("@section"), "a key writes no record: \(source)")
        let internalKey = MacroExpansion.expand("@BeeHiveServiceKey\nprotocol Clock {}").source
        #expect(internalKey.contains("\nenum ClockKey: BeeHive::ServiceKey {\n    typealias Service = any Clock\n"))
        #expect(internalKey.contains("\nfunc _beeHiveServiceKey(_: (any Clock).Type) -> ClockKey.Type {"))
        #expect(!internalKey.contains("@_alwaysEmitIntoClient"), "an internal protocol's clients are its module")
    }
}
#endif
