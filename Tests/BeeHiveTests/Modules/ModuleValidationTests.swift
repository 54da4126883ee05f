import Testing

@testable import BeeHive
@testable import BeeHiveModules
@testable import BeeHiveRouter

/// A class that is no module.
final class NotAModuleType {}

@Suite("Validation by the products that define modules and route handlers")
struct ModuleValidationTests {
    @Test("ModuleManager.validate() names modules whose types are missing or are not modules, with their sources")
    func modules() throws {
        let (manager, _, hive) = makeManager()
        try hive.declareModule("BeeHiveTests.ModuleA", fileID: "App/Modules.swift", line: 1)
        try hive.declareModule("BeeHiveTests.NotAModuleType", fileID: "App/Modules.swift", line: 2)
        try hive.declareModule("BeeHiveTests.Missing", fileID: "App/Modules.swift", line: 3)
        let error = #expect(throws: HiveError.self) { try manager.validate() }
        #expect(error?.code == .validationFailed)
        let message = error?.message ?? ""
        #expect(message.contains("found 2:"), "\(message)")
        #expect(message.contains("code App/Modules.swift:2: expected BeeHiveTests.NotAModuleType to be a module"))
        #expect(message.contains("[notAModule]"))
        #expect(message.contains("code App/Modules.swift:3: expected a type named BeeHiveTests.Missing (a module)"))
        #expect(!message.contains("BeeHiveTests.ModuleA"))
        #expect(hive.diagnostics.map(\.code).contains(.notAModule))

        let (valid, _, validHive) = makeManager()
        try validHive.declareModule("BeeHiveTests.ModuleA")
        try valid.validate()
    }

    @Test("Router.validateDeclaredRoutes(in:) accepts the test binary's annotated route, whose handler conforms")
    func routes() throws {
        #expect(Hive.shared.routeDeclarations.contains { $0.handler == "BeeHiveTests.UserRoute" })
        try Router.validateDeclaredRoutes(in: .shared)
        // A hive without declarations has nothing to find wrong.
        try Router.validateDeclaredRoutes(in: Hive())
    }
}
