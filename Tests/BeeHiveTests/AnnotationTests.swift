import BeeHiveTestAnnotations
import BeeHiveTestSupport
import Testing

@testable import BeeHive
@testable import BeeHiveRouter

@Suite("Annotation records of the test binary")
struct AnnotationTests {
    init() { #expect(beehive_test_annotations_linked() == 1) }

    @Test("every annotated service is registered from its image, section and offset")
    func servicesRegistered() throws {
        let registrations = Hive.shared.serviceRegistrations
        let greeting = try #require(
            registrations.first { $0.service == "BeeHiveTests.GreetingService" && $0.name == nil })
        #expect(greeting.implementation == "BeeHiveTests.EnglishGreeting")
        #expect(greeting.source.sectionName == "beehive_services")
        #expect(greeting.source.imagePath?.hasSuffix("BeeHivePackageTests.xctest") == true)
        #expect(greeting.source.recordOffset != nil)
        #expect(registrations.contains { $0.service == "BeeHiveTests.GreetingService" && $0.name == "french" })
        #expect(registrations.contains { $0.service == "BeeHiveTests.CounterService" })
        #expect(registrations.contains { $0.service == "BeeHiveTests.ClockService" })
    }

    @Test("annotated services resolve by protocol type")
    func resolveByType() throws {
        #expect(try Hive.shared.createService(GreetingService.self).greet() == "hello")
        #expect(try Hive.shared.createService(GreetingService.self, name: "french").greet() == "bonjour")
        #expect(try Hive.shared.createService(ClockService.self).now == 42)
        _ = try Hive.shared.createService(NestedService.self)
    }

    @Test("annotated services resolve by name")
    func resolveByName() throws {
        let service = try Hive.shared.createService(named: "BeeHiveTests.GreetingService")
        #expect((service as? GreetingService)?.greet() == "hello")
    }

    @Test("a singleton implementation gives one instance; others a new one per call")
    func singletonSemantics() throws {
        let a = try Hive.shared.createService(CounterService.self)
        let b = try Hive.shared.createService(CounterService.self)
        #expect(same(a, b))
        let g1 = try Hive.shared.createService(GreetingService.self) as AnyObject
        let g2 = try Hive.shared.createService(GreetingService.self) as AnyObject
        #expect(!same(g1, g2))
    }

    @Test("modules carry level, priority and async from their records")
    func modules() throws {
        let modules = Dictionary(uniqueKeysWithValues: Hive.shared.moduleDeclarations.map { ($0.name, $0) })
        let login = try #require(modules["BeeHiveTests.LoginModule"])
        #expect(login.level == .normal && login.priority == 0 && !login.isAsync)
        let network = try #require(modules["BeeHiveTests.NetworkModule"])
        #expect(network.level == .basic && network.priority == 100 && network.isAsync)
        let shell = try #require(modules["BeeHiveTests.ShellModule"])
        #expect(shell.level == .application)
        let analytics = try #require(modules["BeeHiveTests.AnalyticsModule"])
        #expect(analytics.priority == -5 && analytics.isAsync)
        #expect(login.source.sectionName == "beehive_mods")
    }

    @Test("routes are declared from their records")
    func routes() {
        #expect(
            Hive.shared.routeDeclarations.contains {
                $0.pattern == "annotated://user/:id" && $0.handler == "BeeHiveTests.UserRoute"
            })
    }

    @Test("records of 10, 60 and 250 bytes without alignment control all parse, in a section named by the note")
    func recordLengths() {
        let lengths = Hive.shared.serviceRegistrations.filter { $0.source.sectionName == "bh_test_lengths" }
        #expect(lengths.map(\.service).sorted() == ["BeeHiveTests.Len250", "BeeHiveTests.Len60", "L"])
        #expect(!Hive.shared.diagnostics.contains { $0.source?.sectionName == "bh_test_lengths" })
    }

    @Test("rescan without new images changes nothing and returns at once")
    func rescanNoop() throws {
        try imageLoading.withLock { _ in
            Hive.shared.rescan()  // takes in images another test may have loaded before
            let before = Hive.shared.serviceRegistrations.count
            let statsBefore = try #require(Hive.shared.scanStatistics)
            let report = Hive.shared.rescan()
            #expect(report == Hive.ScanReport())
            #expect(Hive.shared.serviceRegistrations.count == before)
            let statsAfter = try #require(Hive.shared.scanStatistics)
            #expect(statsAfter.scans == statsBefore.scans + 1)
            #expect(statsAfter.shortCircuitScans == statsBefore.shortCircuitScans + 1)
        }
    }

    @Test("no image file is opened: notes of format 3 and the Swift runtime place the records in memory")
    func onlyMarkedImagesOpened() throws {
        // Other suites load plugins with records (under `imageLoading`, and unload them), which the shared hive's
        // counters may have seen: a hive of its own scans now, with none of theirs loaded.
        try imageLoading.withLock { _ in
            let stats = try #require(Hive(options: .init(scansLoadedImages: true)).scanStatistics)
            #expect(stats.imagesLoaded > 3)
            #expect(stats.imagesWithRecords == 1)
            #expect(stats.imagesOpened == 0)
            #expect(stats.sectionsFound == 6)  // services, modules, routes, lengths, malformed; swift5_tests
        }
    }

    @Test("a hive that names its record sections reads only those: the others stay in memory, uncopied")
    func namedSectionsOnly() throws {
        try imageLoading.withLock { _ in
            let services = Hive(options: .init(scansLoadedImages: true, recordSections: ["beehive_services"]))
            let stats = try #require(services.scanStatistics)
            #expect(stats.imagesWithRecords == 1)
            #expect(stats.sectionsFound == 1)
            #expect(!services.serviceRegistrations.isEmpty)
            #expect(services.serviceRegistrations.allSatisfy { $0.source.description.contains("beehive_services") })
            #expect(services.moduleDeclarations.isEmpty)  // beehive_modules was left out

            let none = Hive(options: .init(scansLoadedImages: true, recordSections: []))
            let noneStats = try #require(none.scanStatistics)
            #expect(noneStats.imagesWithRecords == 1)
            #expect(noneStats.sectionsFound == 0)
            #expect(none.serviceRegistrations.isEmpty && none.diagnostics.isEmpty)
        }
    }

    @Test("a hive of its own scans the loaded images again and finds the same records, under image ids of its own")
    func ownScanner() {
        imageLoading.withLock { _ in checkOwnScanner() }
    }

    private func checkOwnScanner() {
        Hive.shared.rescan()  // withdraws what a plugin another suite loaded and unloaded left
        let hive = Hive(options: .init(scansLoadedImages: true))
        let own = hive.serviceRegistrations
        let shared = Hive.shared.serviceRegistrations
        // The same records at the same places: descriptions name image, section and offset.
        #expect(Set(own.map(\.description)) == Set(shared.map(\.description)))
        #expect(hive.moduleDeclarations.map(\.description) == Hive.shared.moduleDeclarations.map(\.description))
        // Every loaded image gets an id no other image in the process ever gets, whichever scanner found it.
        let ids = Set(own.compactMap(\.source.imageID))
        let sharedIDs = Set(shared.compactMap(\.source.imageID))
        #expect(ids.count == 1 && sharedIDs.count == 1 && ids != sharedIDs)
    }
}

@Suite("Malformed records next to good ones")
struct MalformedRecordTests {
    var malformed: [Diagnostic] { Hive.shared.diagnostics.filter { $0.source?.sectionName == "bh_test_malformed" } }

    @Test("every good record of the section registers")
    func goodOnesRegister() throws {
        for service in ["MalformedGood1", "MalformedGood2", "MalformedGood3"] {
            let instance = try Hive.shared.createService(named: "BeeHiveTests.\(service)")
            #expect(instance is GreetingService)
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        let code: HiveError.Code
        let messageContains: String
        var description: String { "\(code)" }
    }

    @Test(
        "each bad record is reported with image, section and offset",
        arguments: [
            Case(code: .malformedRecord, messageContains: "expected ':' after the key"),
            Case(code: .invalidUTF8, messageContains: "invalid byte 0xff"),
            Case(code: .malformedRecord, messageContains: "found '[' at byte 0"),
            Case(code: .unterminatedRecord, messageContains: "found the end of the section"),
        ])
    func badRecordsReported(_ c: Case) throws {
        let diagnostic = try #require(malformed.first { $0.code == c.code && $0.message.contains(c.messageContains) })
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.source?.imagePath?.hasSuffix("BeeHivePackageTests.xctest") == true)
        #expect(diagnostic.source?.recordOffset != nil)
        #expect("\(diagnostic)".contains("section bh_test_malformed, record at offset 0x"))
    }

    @Test("a record that is an array is not taken for a service")
    func arrayRecord() {
        #expect(malformed.contains { $0.message.contains("expected a JSON object") })
    }

    @Test("an unknown type name is reported when resolved, with the record's source")
    func unknownType() throws {
        let error = #expect(throws: HiveError.self) {
            try Hive.shared.createService(named: "BeeHiveTests.UnknownTypeService")
        }
        #expect(error?.code == .unknownType)
        #expect(error?.source?.sectionName == "bh_test_malformed")
        #expect(error?.message.contains("BeeHiveTests.NoSuchType") == true)
        // Format 2: the diagnostic starts where the annotation was written.
        #expect(error?.source?.annotationFile == "malformed.c")
        #expect(error?.source?.annotationLine == 12)
        #expect(error?.description.hasPrefix("malformed.c:12, image ") == true)
    }

    @Test("a type that is not an implementation is reported")
    func notAnImplementation() {
        let error = #expect(throws: HiveError.self) {
            try Hive.shared.createService(named: "BeeHiveTests.NotAnImplementationService")
        }
        #expect(error?.code == .notAnImplementation)
        #expect(error?.message.contains("BeeHiveTests.PlainType") == true)
    }

    @Test("an implementation that does not conform to its service is reported")
    func doesNotConform() {
        let error = #expect(throws: HiveError.self) { try Hive.shared.createService(GreetingService2.self) }
        #expect(error?.code == .doesNotConform)
        #expect(error?.source?.sectionName == "bh_test_malformed")
    }

    @Test("validate finds every problem at once, without creating anything")
    func validate() {
        let hive = Hive(options: .init(scansLoadedImages: true))
        let error = #expect(throws: HiveError.self) { try hive.validate() }
        #expect(error?.code == .validationFailed)
        let codes = Set(hive.diagnostics.map(\.code))
        #expect(
            codes.isSuperset(of: [
                .unknownType, .notAnImplementation, .malformedRecord, .invalidUTF8, .unterminatedRecord,
            ]))
    }
}

@Suite("Routes from annotation records")
struct AnnotatedRouteTests {
    @Test("an annotated route opens on its scheme's router once the shared hive's routes are registered")
    func annotatedRouteOpens() throws {
        // A router never creates the shared hive; this call (or any use of Hive.shared) makes the routes join.
        let problems = Router.registerDeclaredRoutes(from: .shared)
        #expect(problems.isEmpty, "\(problems)")
        #expect(Router.registerDeclaredRoutes(from: .shared).isEmpty, "a second call adds nothing and finds nothing")
        let router = try Router.router(forURL: "annotated://user/42")
        #expect(router.scheme == "annotated")
        #expect(try router.open("annotated://user/42") as? String == "user 42")
        #expect(router.canOpen("annotated://user/7"))
        #expect(!router.canOpen("annotated://nobody"))
    }
}
