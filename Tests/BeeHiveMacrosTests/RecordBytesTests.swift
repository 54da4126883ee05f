#if Macros
import Testing

/// The bytes each annotation writes: the JSON record (format version 2, with file and line) and the image note.
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

    @Test("each annotation writes one NUL-terminated JSON record of format version 2", arguments: cases)
    func record(_ testCase: Case) {
        #expect(MacroExpansion.recordText(testCase.source, freestanding: testCase.freestanding) == testCase.record)
    }

    /// The note `beehive.h` writes, with the `types=` entry of version 2, byte by byte.
    static let expectedNote: [UInt8] = {
        let descriptor = Array(
            "services=beehive_services\0modules=beehive_mods\0routes=beehive_routes\0types=beehive_types\0".utf8)
        var bytes: [UInt8] = [8, 0, 0, 0, UInt8(4 + descriptor.count), 0, 0, 0, 1, 0, 0, 0]
        bytes += Array("BeeHive\0".utf8) + [2, 0, 0, 0] + descriptor
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }()

    @Test(
        "each annotation writes the image note: owner BeeHive, type 1, version 2, four section names", arguments: cases)
    func note(_ testCase: Case) throws {
        let expansion = MacroExpansion.expand(testCase.source, freestanding: testCase.freestanding)
        let notes = MacroExpansion.sectionLiterals(in: expansion.source).filter { $0.section == ".note.beehive" }
        let words = try #require(notes.first?.values)
        #expect(notes.count == 1)
        let bytes = words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) } }
        #expect(bytes == Self.expectedNote)
        #expect(Self.expectedNote.count == 116)
    }

    @Test(
        "each annotation writes a typed record: magic BHTR, layout 5, a guarded accessor naming the JSON record's types"
    )
    func typedRecord() {
        let source = MacroExpansion.expand(Self.cases[2].source).source
        #expect(source.contains(#"@section("beehive_types") @used"#))
        #expect(
            source.contains(
                "(UInt32, UInt32, BeeHive::_BeeHiveTypedRecord.Accessor) = (0x5254_4842, 5, { out, type, hint in"))
        // The accessor writes only for the copy of BeeHive that asks (the guard), and says whether it wrote.
        #expect(source.contains("BeeHive::_BeeHiveTypedRecord.write(.service("), "\(source)")
        #expect(source.contains("to: out, type: type, hint: hint)"), "\(source)")
        #expect(
            source.contains(
                "write(.service(__macro_local_23BeeHiveConformanceCheckfMu_.Service.self, implementation: "
                    + "App::Outer.Middle.AVeryLongImplementationNameThatGoesOnAndOnForMoreThanSixtyFourBytes.self, "
                    + #"named: "App.Outer.Middle.AVeryLongImplementationNameThatGoesOnAndOnForMoreThanSixtyFourBytes", "#
                    + #"serviceNamed: "PluginAPI.GreeterService", upcast: {"#), "\(source)")
        #expect(source.contains("BeeHiveConformanceCheckfMu_.implementationOfTheService($0)"), "\(source)")
        // The one place the service is named, which the compiler checks: its module as written.
        #expect(source.contains("typealias Service = PluginAPI::GreeterService\n"), "\(source)")
        let module = MacroExpansion.expand(Self.cases[5].source).source
        #expect(
            module.contains(
                #"write(.type(App::LoginModule.self as any BeeHiveModules::HiveModule.Type, named: "App.LoginModule")"#)
        )
        let route = MacroExpansion.expand(Self.cases[8].source).source
        #expect(
            route.contains(
                #"write(.type(App::UserRoute.self as any BeeHiveRouter::RouteHandler.Type, named: "App.UserRoute")"#))
    }
}
#endif
