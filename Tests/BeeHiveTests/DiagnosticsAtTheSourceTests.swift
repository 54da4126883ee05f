import Testing

@testable import BeeHive

/// A service that ``EnglishGreeting`` does not implement.
protocol FarewellService {}

@Suite("Diagnostics at the source")
struct DiagnosticsAtTheSourceTests {
    @Test("an unknown implementation name gets the closest names of its module")
    func unknownTypeSuggestsClosestNames() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.GreetingService", impl: "BeeHiveTests.EnglishGreting")
        let error = #expect(throws: HiveError.self) { try hive.createService(GreetingService.self) }
        #expect(error?.code == .unknownType)
        #expect(error?.message.contains("Did you mean `BeeHiveTests.EnglishGreeting`?") == true)
        #expect(error?.message.contains("found none") == true)
    }

    @Test("a name in no loaded module says so")
    func unknownModuleIsNamed() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.GreetingService", impl: "NoSuchModule.EnglishGreeting")
        let error = #expect(throws: HiveError.self) { try hive.createService(GreetingService.self) }
        #expect(error?.message.contains("found no module NoSuchModule in any loaded image") == true)
        #expect(error?.message.contains("`BeeHiveTests.EnglishGreeting`") == true)
    }

    @Test("structs and nested types resolve by name")
    func structsAndNestedTypesResolveByName() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.ClockService", impl: "BeeHiveTests.ValueClock")
        try hive.register(service: "BeeHiveTests.NestedService", impl: "BeeHiveTests.Outer.NestedImpl")
        #expect(try hive.createService(ClockService.self).now == 42)
        #expect(try hive.createService(NestedService.self) is Outer.NestedImpl)
    }

    @Test("a missing service gets the closest registered names, the images with records, and a linking hint")
    func missingServiceHints() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.GreetingServic", impl: "BeeHiveTests.EnglishGreeting")
        let error = #expect(throws: HiveError.self) { try hive.createService(GreetingService.self) }
        #expect(error?.code == .serviceNotFound)
        #expect(error?.message.contains("Did you mean `BeeHiveTests.GreetingServic`?") == true)
        #expect(error?.message.contains("Images with records: none.") == true)
        let other = #expect(throws: HiveError.self) { try hive.createService(named: "Payments.Ledger") }
        #expect(other?.message.contains("No registration names a type of module Payments") == true)
        #expect(error?.message.contains("No registration names a type of module") == false)
    }

    @Test("a missing service is offered only names that could be meant: its name in another module, or a near typo")
    func missingServiceSuggestsOnlyLikelyNames() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.StoringService", impl: "BeeHiveTests.EnglishGreeting")
        try hive.register(service: "BeeHiveTests.FarewellService", impl: "BeeHiveTests.EnglishGreeting")
        let unrelated = #expect(throws: HiveError.self) { try hive.createService(GreetingService.self) }
        #expect(unrelated?.message.contains("Did you mean") == false, "\(String(describing: unrelated))")
        try hive.register(service: "Shop.GreetingService", impl: "BeeHiveTests.EnglishGreeting")
        let moved = #expect(throws: HiveError.self) { try hive.createService(GreetingService.self) }
        #expect(moved?.message.contains("Did you mean `Shop.GreetingService`?") == true, "\(String(describing: moved))")
    }

    @Test("validate() reports an implementation that does not conform to its service, without creating it")
    func validateFindsNonConformingImplementations() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.FarewellService", impl: "BeeHiveTests.EnglishGreeting")
        try hive.register(service: "BeeHiveTests.GreetingService", impl: "BeeHiveTests.FrenchGreeting")
        let error = #expect(throws: HiveError.self) { try hive.validate() }
        #expect(error?.code == .validationFailed)
        #expect(
            error?.message.contains(
                "expected BeeHiveTests.EnglishGreeting to conform to BeeHiveTests.FarewellService; it does not") == true
        )
        #expect(error?.message.contains("FrenchGreeting") == false)
    }

    @Test("validate() reports a service name that is no loaded protocol, with the closest ones")
    func validateFindsMisspeltServices() throws {
        let hive = Hive()
        try hive.register(service: "BeeHiveTests.GreetingSevice", impl: "BeeHiveTests.EnglishGreeting")
        let error = #expect(throws: HiveError.self) { try hive.validate() }
        #expect(error?.message.contains("BeeHiveTests.GreetingSevice (the service") == true)
        #expect(error?.message.contains("Did you mean `BeeHiveTests.GreetingService`") == true)
    }

    @Test("the compile-time-checked factory form resolves with no dynamic cast of the instance")
    func typedFactoriesBoxTheirInstances() throws {
        let hive = Hive()
        try hive.register(GreetingService.self, scope: .singleton) { _ in EnglishGreeting() }
        try hive.register(GreetingService.self, name: "french") { _ in FrenchGreeting() }
        #expect(try hive.createService(GreetingService.self).greet() == "hello")
        #expect(try hive.createService(GreetingService.self).greet() == "hello")
        #expect(try hive.createService(GreetingService.self, name: "french").greet() == "bonjour")
        #expect(try hive.createService(named: "BeeHiveTests.GreetingService") is EnglishGreeting)
    }

    @Test("a source with the annotation's file and line prints them first")
    func annotationSourcesStartWithFileAndLine() {
        let source = RegistrationSource.annotation(
            image: "/app", section: "beehive_services", offset: 0x40, sectionFileOffset: 0x14000, imageID: 1,
            file: "annotations.c", line: 3)
        #expect(
            source.description
                == "annotations.c:3, image /app, section beehive_services, record at offset 0x40, file offset 0x14040")
        #expect(source.annotationFile == "annotations.c")
        #expect(source.annotationLine == 3)
    }
}
