import BeeHiveTestSupport
import Foundation
import Testing

@testable import BeeHive

/// Mistakes the compiler must refuse, type-checked for real with `swiftc` against the modules of this test build.
@Suite("Compile-time checks: code registration")
struct CompileTimeCheckTests {
    /// The folder of this test binary's build products: `Modules/` and the C targets' module maps are there.
    static let products = FixtureBuild.products

    /// Type-checks `source` as a program that imports BeeHive; returns the compiler's output and whether it passed.
    static func typecheck(_ source: String) throws -> (passed: Bool, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-typecheck-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("main.swift")
        try Data(source.utf8).write(to: file)
        let arguments =
            [
                "-typecheck", "-I", products.appendingPathComponent("Modules").path,
            ] + ScannerSources.clangModuleFlags(products: products, repository: Command.repository) + [file.path]
        do {
            return (true, try Command.run("swiftc", arguments))
        } catch let failure as Command.Failure {
            return (false, failure.description)
        }
    }

    static let declarations = """
        import BeeHive

        protocol Clock { var now: Int { get } }
        struct SystemClock: Clock { var now: Int { 1 } }
        struct WallClock { var now: Int { 2 } }
        let hive = Hive()

        """

    @Test("a factory whose implementation conforms type-checks")
    func conformingFactory() throws {
        let result = try Self.typecheck(Self.declarations + "try hive.register(Clock.self) { _ in SystemClock() }\n")
        #expect(result.passed, "\(result.output)")
    }

    @Test("a factory whose implementation does not conform is a compile error naming both types")
    func nonConformingFactory() throws {
        let result = try Self.typecheck(Self.declarations + "try hive.register(Clock.self) { _ in WallClock() }\n")
        #expect(!result.passed)
        #expect(result.output.contains("WallClock"), "\(result.output)")
        #expect(result.output.contains("Clock"), "\(result.output)")
        #expect(result.output.contains("main.swift:7"), "\(result.output)")
    }

    @Test("a typed route table refuses, at compile time, a handler of another output type")
    func routeTableHandlerType() throws {
        let source = """
            import BeeHiveRouter

            enum Screen { case user(Int) }
            let table = RouteTable<Screen>(scheme: "app")
            try table.register(pattern: "app://user/:id") { request in .user(try request.parameters.int("id")) }
            try table.register(pattern: "app://about") { _ in "about" }

            """
        let result = try Self.typecheck(source)
        #expect(!result.passed)
        #expect(result.output.contains("main.swift:6"), "\(result.output)")
        #expect(result.output.contains("Screen"), "\(result.output)")
        #expect(!result.output.contains("main.swift:5"), "the well-typed handler is accepted: \(result.output)")
    }
}
