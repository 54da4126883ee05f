import Testing

@testable import BeeHive

/// What the compiler cannot refuse (Tests/BeeHiveIntegrationTests/Binaries/CompileTimeCheckTests.swift shows what it
/// does refuse): an implementation type named by metatype is checked when it is registered, as BeeHive's
/// `registerService:implClass:` does.
@Suite("Registration by implementation type")
struct ByTypeRegistrationTests {
    @Test("an implementation that is not its service, registered by type, compiles and is refused at registration")
    func byTypeFormIsCheckedAtRunTime() throws {
        let hive = Hive()
        let error = #expect(throws: HiveError.self) {
            try hive.register(service: Storage.self, impl: UnrelatedImplementation.self)
        }
        #expect(!hive.hasService(Storage.self))
        #expect(error?.code == .doesNotConform)
        #expect(error?.message.contains("UnrelatedImplementation") == true)
        #expect(error?.message.contains("Storage") == true)
    }
}

/// An implementation type that conforms to no service protocol of the tests.
final class UnrelatedImplementation: ServiceImplementation {
    init() {}
}
