import BeeHiveTestSupport
import Foundation
import Testing

/// Mistakes in Swift annotations that the compiler refuses, type-checked for real with `swiftc`, the macro plugin
/// of this test build and the modules of this test build, as module `App` (so `#fileID` is `App/main.swift`).
///
/// Needs the build to include the macros (the package trait `Macros`, as `Scripts/test.sh` builds); skipped
/// otherwise.
@Suite(
    "Compile-time checks: Swift annotations",
    .enabled(if: FixtureBuild.hasMacroPlugin, "built without the trait Macros"))
struct MacroCompileTimeCheckTests {
    static let products = FixtureBuild.products
    static let plugin = FixtureBuild.macroPlugin

    /// Type-checks `source` as `App/main.swift` (or, with `compiling`, compiles it to an object file, which also runs
    /// the checks after type-checking); returns the compiler's output and whether it passed.
    ///
    /// - Parameter modules: Modules that `source` imports, each one Swift file, emitted first (`swiftc -emit-module`)
    ///   by the name of the file.
    static func typecheck(
        _ source: String, compiling: Bool = false, modules: [URL] = []
    ) throws -> (passed: Bool, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-macro-check-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mode = compiling ? ["-c", "-o", directory.appendingPathComponent("main.o").path] : ["-typecheck"]
        return try compile(source, mode, modules: modules, in: directory)
    }

    /// Compiles `source` as `App/main.swift` in `directory` with `mode` (`-typecheck`, `-c -o …`, `-emit-library
    /// -o …`): ``typecheck(_:compiling:modules:)``'s compiler run, for a test that keeps what it emits.
    static func compile(
        _ source: String, _ mode: [String], modules: [URL] = [], in directory: URL
    ) throws -> (passed: Bool, output: String) {
        for module in modules {
            let name = module.deletingPathExtension().lastPathComponent
            try Command.run(
                "swiftc",
                [
                    "-emit-module", "-parse-as-library", "-module-name", name, "-o",
                    directory.appendingPathComponent(name + ".swiftmodule").path, module.path,
                ])
        }
        let file = directory.appendingPathComponent("main.swift")
        try Data(source.utf8).write(to: file)
        let arguments =
            mode + [
                "-module-name", "App", "-I", products.appendingPathComponent("Modules").path, "-I", directory.path,
                "-load-plugin-executable", plugin.path + "#_BeeHiveMacrosPlugin",
            ] + ScannerSources.clangModuleFlags(products: products, repository: Command.repository) + [file.path]
        do {
            return (true, try Command.run("swiftc", arguments))
        } catch let failure as Command.Failure {
            return (false, failure.description)
        }
    }

    static let declarations = """
        import BeeHiveMacros
        import BeeHiveModules
        import BeeHiveRouter

        protocol Clock: Sendable { var now: Int { get } }

        """

    @Test("well-formed annotations of every kind type-check")
    func wellFormed() throws {
        let result = try Self.typecheck(
            Self.declarations + """
                @BeeHiveService(Clock.self, name: "system")
                struct SystemClock: Clock { var now: Int { 1 } }
                @BeeHiveMod(level: .application, priority: 1, async: false)
                final class Module: HiveModule {}
                @BeeHiveRoute("app://x/:id")
                struct Route: RouteHandler { func handle(_ request: RouteRequest) throws -> Any? { nil } }
                #BeeHiveService(Clock.self, SystemClock.self, name: "again")
                #BeeHiveMod(Module.self)
                #BeeHiveRoute("app://y", Route.self)
                enum Outer {
                    @BeeHiveService(App.Clock.self) struct Inner: Clock { var now: Int { 2 } }
                }
                protocol Named: Sendable {}
                @BeeHiveService(Clock.self, name: "both")
                @BeeHiveService(Named.self)
                struct Both: Clock, Named { var now: Int { 4 } }
                class Base: @unchecked Sendable { required init() {} }
                @BeeHiveService(Base.self)
                final class Derived: Base, @unchecked Sendable {}
                """)
        #expect(result.passed, "\(result.output)")
    }

    @Test("well-formed annotations compile to an object file (the accessor is a C function pointer: no capture)")
    func wellFormedCompiles() throws {
        let result = try Self.typecheck(
            Self.declarations + """
                @BeeHiveService(Clock.self, name: "system")
                struct SystemClock: Clock { var now: Int { 1 } }
                struct OtherClock: Clock, ServiceImplementation { var now: Int { 3 } }
                #BeeHiveService(Clock.self, OtherClock.self, name: "other")
                """, compiling: true)
        #expect(result.passed, "\(result.output)")
    }

    @Test(
        "a typealias of the service compiles (no expansion can tell it from the protocol); beehive check names it"
    )
    func typealiasCheckedOffline() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-macro-alias-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("libApp.so").path
        let built = try Self.compile(
            Self.declarations + """
                typealias Timer = Clock
                @BeeHiveService(Timer.self)
                struct SystemClock: Clock { var now: Int { 1 } }
                """, ["-emit-library", "-o", library], in: directory)
        #expect(built.passed, "\(built.output)")
        let check = try TimedCommand.run(
            FixtureBuild.products.appendingPathComponent("beehive").path, ["check", library], in: directory,
            timeout: TimedCommand.hangGuard)
        // The record keeps the name written: the alias's, which no protocol descriptor has.
        let line = check.standardOutput.split(separator: "\n").first { $0.contains("[missingType]") }
        #expect(
            check.termination == .exited(1), "\(check.termination)\n\(check.standardOutput)\n\(check.standardError)")
        #expect(line?.contains("expected service App.Timer (the service implemented by App.SystemClock)") == true)
        #expect(line?.contains("a typealias (name the protocol itself)") == true, "\(check.standardOutput)")
    }

    @Test("the must-not-compile fixture (an implementation that is not its service) fails, naming both types")
    func nonConformingFixture() throws {
        let fixture = Command.repository.appendingPathComponent(
            "Tests/MacroFixtures/MustNotCompile/NonConformingImplementation.swift")
        let result = try Self.typecheck(try String(contentsOf: fixture, encoding: .utf8))
        #expect(!result.passed)
        // Our words, with both types, module-qualified, and the annotation as written.
        #expect(
            result.output.contains(
                "@BeeHiveService(Clock.self): App.WallClock must conform to App.Clock, the service it is annotated "
                    + "with"), "\(result.output)")
        // At the annotation: the compiler's note points at line 11, the attribute.
        #expect(result.output.contains("11 | @BeeHiveService(Clock.self)"), "\(result.output)")
        #expect(
            result.output.contains("note: in expansion of macro 'BeeHiveService' on struct 'WallClock' here"),
            "\(result.output)")
        // Not the expansion's internals: no conversion error, and no mangled name in any error's message.
        let errors = result.output.split(separator: "\n").filter { $0.contains("error:") }
        #expect(
            !errors.isEmpty && errors.allSatisfy { !$0.contains("cannot convert") && !$0.contains("$s") }, "\(errors)")
    }

    /// The must-not-compile fixtures of issue 34, whose annotations name a service the macro cannot record: each
    /// fails, with BeeHive's words naming the types and the fix, at the annotation.
    struct Fixture: Sendable, CustomTestStringConvertible {
        let file: String
        let mentions: [String]
        var testDescription: String { file }
    }

    static let fixtures: [Fixture] = [
        Fixture(
            file: "UnqualifiedServiceOfAnotherModule.swift",
            mentions: [
                // BeeHive's error, naming the annotation, both types and the fix.
                "error: 'serviceWrittenWithoutItsModule' is unavailable: @BeeHiveService(StockService.self): the "
                    + "service 'StockService' written here is not 'App.StockService', the type its record names: a "
                    + "service written without its module is taken as this module's (App); write it with the module "
                    + "that declares it, '<Module>.StockService.self' (the compiler's note 'did you mean module' "
                    + "names it)",
                // The compiler's error and note, which name the module the protocol is in.
                "error: 'StockService' is not imported through module 'App'", "did you mean module 'ShopAPI'?",
                "10 | @BeeHiveService(StockService.self)",
                "note: in expansion of macro 'BeeHiveService' on struct 'Shelf' here",
            ]),
        Fixture(
            file: "ServiceComposition.swift",
            mentions: [
                "error: expected one service protocol, found the composition "
                    + "'ShopAPI.StockService & ShopAPI.PriceService'",
                "declare a protocol that refines them ('protocol StockServicePriceService: ShopAPI.StockService, "
                    + "ShopAPI.PriceService {}'), implement it and write 'StockServicePriceService.self'",
            ]),
        Fixture(
            file: "ServiceWithConstraint.swift",
            mentions: [
                "error: expected one service protocol, found the composition 'ShopAPI.StockService & Sendable' in "
                    + "'(any ShopAPI.StockService & Sendable).self': a record names the protocol itself, and "
                    + "'Sendable' constrains it without being service protocols; write 'ShopAPI.StockService.self'",
                "6 | @BeeHiveService((any ShopAPI.StockService & Sendable).self)",
            ]),
        Fixture(
            file: "GenericService.swift",
            mentions: [
                "error: expected the service protocol as a plain type name, found 'ShopAPI.GenericBox<Int>', a "
                    + "specialised generic type",
                "register a specialisation in code, with 'hive.register(service:impl:)'",
            ]),
    ]

    @Test(
        "each must-not-compile fixture of a service the macro cannot record fails in BeeHive's words",
        arguments: fixtures)
    func unrecordableService(_ fixture: Fixture) throws {
        let folder = Command.repository.appendingPathComponent("Tests/MacroFixtures/MustNotCompile")
        let result = try Self.typecheck(
            try String(contentsOf: folder.appendingPathComponent(fixture.file), encoding: .utf8),
            modules: [folder.appendingPathComponent("ShopAPI/ShopAPI.swift")])
        #expect(!result.passed, "\(fixture.file) compiled")
        for mention in fixture.mentions {
            #expect(result.output.contains(mention), "\(result.output)")
        }
    }

    /// A mistake, and what the compiler's output must contain.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let source: String
        let mentions: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a freestanding registration of an implementation that is not its service",
            source: "struct WallClock: ServiceImplementation {}\n#BeeHiveService(Clock.self, WallClock.self)",
            mentions: ["#BeeHiveService(Clock.self): App.WallClock must conform to App.Clock"]),
        Case(
            name: "a freestanding registration of a type that is no ServiceImplementation",
            source: "struct Plain: Clock { var now: Int { 0 } }\n#BeeHiveService(Clock.self, Plain.self)",
            mentions: ["'Plain'", "ServiceImplementation"]),
        Case(
            name: "an unknown implementation type", source: "#BeeHiveService(Clock.self, Missing.self)",
            mentions: ["Missing"]),
        Case(
            name: "another module's module type named without its module",
            source: "#BeeHiveMod(ModuleContext.self)",
            mentions: [
                "error: 'moduleTypeWrittenWithoutItsModule' is unavailable: #BeeHiveMod(ModuleContext.self): the "
                    + "module type 'ModuleContext' written here is not 'App.ModuleContext', the type its record names",
                "did you mean module 'BeeHiveModules'?",
            ]),
        Case(
            name: "an unknown service", source: "@BeeHiveService(Watch.self)\nstruct C: Clock { var now: Int { 0 } }",
            mentions: ["Watch"]),
        Case(
            name: "another module's protocol named without its module (the module the macro guessed is checked)",
            source: "@BeeHiveService(RouteHandler.self)\nstruct R: RouteHandler { "
                + "func handle(_ request: RouteRequest) throws -> Any? { nil } }",
            mentions: [
                "App::RouteHandler",
                "@BeeHiveService(RouteHandler.self): the service 'RouteHandler' written here is not "
                    + "'App.RouteHandler', the type its record names", "did you mean module 'BeeHiveRouter'?",
            ]),
        Case(
            name: "a module type that is no HiveModule", source: "@BeeHiveMod\nfinal class NotAModule {}",
            mentions: ["'NotAModule.Type'", "HiveModule"]),
        Case(
            name: "a route handler that is no RouteHandler", source: "@BeeHiveRoute(\"app://x\")\nstruct NotARoute {}",
            mentions: ["'NotARoute.Type'", "RouteHandler"]),
    ]

    @Test("each mistake is a compile error naming the types", arguments: cases)
    func mistake(_ testCase: Case) throws {
        let result = try Self.typecheck(Self.declarations + testCase.source + "\n")
        #expect(!result.passed, "\(testCase.name) compiled")
        for mention in testCase.mentions {
            #expect(result.output.contains(mention), "\(result.output)")
        }
    }
}
