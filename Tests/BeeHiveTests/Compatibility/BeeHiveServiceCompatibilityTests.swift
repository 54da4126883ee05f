import Testing

@testable import BeeHive

/// BeeHive's service examples (README, demo, BHService.plist), written against `Hive`.
@Suite("Compatibility: BHServiceManager, BHContext's service cache and BHService.plist")
struct BeeHiveServiceCompatibilityTests {
    @Test("README: registerService:service: then createService: gives the implementation")
    func registerThenCreate() throws {
        let hive = Hive()
        // [[BeeHive shareInstance] registerService:@protocol(HomeServiceProtocol) service:[BHViewController class]];
        try hive.register(service: HomeServiceProtocol.self, impl: CompatHomeService.self)
        // id<HomeServiceProtocol> homeVc = [[BeeHive shareInstance] createService:@protocol(HomeServiceProtocol)];
        let home = try hive.createService(HomeServiceProtocol.self)
        #expect(home.welcome() == "home")
        // +singleton YES: the same instance every time.
        #expect(same(home, try hive.createService(HomeServiceProtocol.self)))
    }

    @Test("README: BHService.plist as a dictionary {protocol: class} registers every pair")
    func dictionaryPlist() throws {
        let hive = Hive()
        let path = try compatibilityFile(
            "BHService.plist",
            propertyList(
                """
                <dict>
                    <key>BeeHiveTests.HomeServiceProtocol</key><string>BeeHiveTests.CompatHomeService</string>
                    <key>BeeHiveTests.UserTrackServiceProtocol</key><string>BeeHiveTests.CompatUserTrackService</string>
                </dict>
                """))
        #expect(try hive.loadServices(from: path).isEmpty)
        #expect(try hive.createService(HomeServiceProtocol.self).welcome() == "home")
        #expect(try hive.createService(UserTrackServiceProtocol.self).track("tap") == "tracked tap")
        let registration = try #require(hive.registration(for: "BeeHiveTests.UserTrackServiceProtocol"))
        #expect(registration.source.filePath == path && registration.source.entryIndex == 1)
    }

    @Test("BHService.plist as an array of {service, impl} still registers, and so does an empty dictionary")
    func arrayPlistAndEmptyDictionary() throws {
        let hive = Hive()
        let array = try compatibilityFile(
            "BHService.plist",
            propertyList(
                """
                <array><dict><key>service</key><string>BeeHiveTests.HomeServiceProtocol</string>
                <key>impl</key><string>BeeHiveTests.CompatHomeService</string></dict></array>
                """))
        #expect(try hive.loadServices(from: array).isEmpty)
        #expect(hive.hasService(HomeServiceProtocol.self))
        let empty = try compatibilityFile("BHService.plist", propertyList("<dict/>"))
        #expect(try hive.loadServices(from: empty).isEmpty)
    }

    @Test("a bad pair of the dictionary form costs that pair only, named by its index and key")
    func dictionaryPlistBadEntry() throws {
        let hive = Hive()
        let path = try compatibilityFile(
            "BHService.plist",
            propertyList(
                """
                <dict>
                    <key>BeeHiveTests.HomeServiceProtocol</key><integer>7</integer>
                    <key>BeeHiveTests.UserTrackServiceProtocol</key><string>BeeHiveTests.CompatUserTrackService</string>
                </dict>
                """))
        let problems = try hive.loadServices(from: path)
        #expect(problems.count == 1)
        #expect(problems.first?.code == .malformedEntry)
        #expect(problems.first?.error.source?.entryIndex == 0)
        #expect(problems.first?.message.contains("\"impl\"") == true, "\(problems)")
        #expect(try hive.createService(UserTrackServiceProtocol.self).track("x") == "tracked x")
    }

    @Test("registerService:implClass: with a class that does not conform is refused and leaves the slot free")
    func nonConformingRegistrationIsRefused() throws {
        let hive = Hive()
        let error = #expect(throws: HiveError.self) {
            try hive.register(service: HomeServiceProtocol.self, impl: CompatUnrelatedService.self)
        }
        #expect(error?.code == .doesNotConform)
        #expect(error?.message.contains("CompatUnrelatedService") == true)
        #expect(!hive.hasService(HomeServiceProtocol.self))
        #expect(hive.diagnostics.contains { $0.code == .doesNotConform })
        // The later valid registration is not a duplicate: it takes the free slot.
        try hive.register(service: HomeServiceProtocol.self, impl: CompatHomeService.self)
        #expect(try hive.createService(HomeServiceProtocol.self).welcome() == "home")
        #expect(!hive.diagnostics.contains { $0.code == .duplicateRegistration })
    }

    @Test("enableException: strict mode refuses the non-conforming class too, and throws on a duplicate")
    func strictMode() throws {
        let hive = Hive(options: .init(isStrict: true))
        #expect(throws: HiveError.self) {
            try hive.register(service: HomeServiceProtocol.self, impl: CompatUnrelatedService.self)
        }
        try hive.register(service: HomeServiceProtocol.self, impl: CompatHomeService.self)
        let duplicate = #expect(throws: HiveError.self) {
            try hive.register(service: HomeServiceProtocol.self, impl: CompatHomeService.self)
        }
        #expect(duplicate?.code == .duplicateRegistration)
    }

    @Test("getServiceInstanceFromServiceName: the kept instance, without making one")
    func existingInstance() throws {
        let hive = Hive()
        try hive.register(service: HomeServiceProtocol.self, impl: CompatHomeService.self)
        try hive.register(service: UserTrackServiceProtocol.self, impl: CompatUserTrackService.self)
        let before = CompatHomeService.made.load(ordering: .relaxed)
        #expect(hive.existingService(HomeServiceProtocol.self) == nil)
        #expect(CompatHomeService.made.load(ordering: .relaxed) == before, "asking made nothing")
        let home = try hive.createService(HomeServiceProtocol.self)
        let kept = try #require(hive.existingService(HomeServiceProtocol.self))
        #expect(same(kept, home))
        #expect(hive.existingService(named: "BeeHiveTests.HomeServiceProtocol") != nil)
        // removeServiceWithServiceName: forgets it.
        hive.removeServiceInstance(HomeServiceProtocol.self)
        #expect(hive.existingService(HomeServiceProtocol.self) == nil)
        // A transient implementation keeps nothing.
        _ = try hive.createService(UserTrackServiceProtocol.self)
        #expect(hive.existingService(UserTrackServiceProtocol.self) == nil)
    }

    @Test("createService:withServiceName: migrates to one registration per name: two names, two kept instances")
    func serviceNameAsCacheKey() throws {
        let hive = Hive()
        // BeeHive: createService:@protocol(HomeServiceProtocol) withServiceName:@"left" / @"right" over one
        // registration keeps two instances. Here each name is registered with the same implementation.
        try hive.register(service: HomeServiceProtocol.self, impl: CompatHomeService.self, name: "left")
        try hive.register(service: HomeServiceProtocol.self, impl: CompatHomeService.self, name: "right")
        let left = try hive.createService(HomeServiceProtocol.self, name: "left")
        let right = try hive.createService(HomeServiceProtocol.self, name: "right")
        #expect(!same(left, right))
        #expect(same(left, try hive.createService(HomeServiceProtocol.self, name: "left")))
        #expect(same(try #require(hive.existingService(HomeServiceProtocol.self, name: "right")), right))
    }

    @Test("createService:withServiceName:shouldCache:NO gives an instance that is not kept")
    func shouldCacheNo() throws {
        let hive = Hive()
        try hive.register(service: HomeServiceProtocol.self, impl: CompatHomeService.self)
        let uncached = try hive.createService(HomeServiceProtocol.self, shouldCache: false)
        #expect(hive.existingService(HomeServiceProtocol.self) == nil)
        #expect(!same(uncached, try hive.createService(HomeServiceProtocol.self)))
    }
}
