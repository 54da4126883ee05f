#if Macros
import Foundation
import Testing

/// How an expansion names the service: once, in the conformance check's `Service`, with the module the annotation
/// wrote or, for a name of one component, the current module, which a check compares with the name as written, so
/// that a wrong guess is an error in BeeHive's words.
@Suite("Service spelling: the module of a service named without one")
struct ServiceSpellingTests {
    static let unqualified = "@BeeHiveService(StockService.self)\nstruct Shelf: StockService {}"
    static let qualified = "@BeeHiveService(ShopAPI.StockService.self)\nstruct Shelf: StockService {}"

    @Test("a service of one name is checked as the current module's, and as the type written, in BeeHive's words")
    func unqualifiedService() throws {
        let source = MacroExpansion.expand(Self.unqualified).source
        let lines = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("typealias Service = App::StockService"), "\(source)")
        #expect(lines.filter { $0.contains("App::StockService") }.count == 1, "named once: \(source)")
        #expect(lines.contains("static func serviceWrittenWithoutItsModule(_ written: [Service].Type) {"))
        #expect(lines.contains("serviceWrittenWithoutItsModule([StockService].self)"), "\(source)")
        let unavailable = try #require(
            lines.firstIndex { $0 == "static func serviceWrittenWithoutItsModule(_ written: Any.Type) {" })
        let message = lines[unavailable - 1]
        #expect(
            message.hasPrefix(
                "@available(*, unavailable, message: \"@BeeHiveService(StockService.self): the service 'StockService' "
                    + "written here is not 'App.StockService', the type its record names"), "\(message)")
        for words in [
            "taken as this module's (App)", "write it with the module that declares it, '<Module>.StockService.self'",
            "the compiler's note 'did you mean module' names it", "a nested protocol with its enclosing types",
        ] {
            #expect(message.contains(words), "\(message)")
        }
        #expect(!source.contains("// BeeHive:"), "BeeHive's words are the error's: \(source)")
    }

    @Test("a service written with its module is checked in that module, with no check of the name written")
    func qualifiedService() {
        let source = MacroExpansion.expand(Self.qualified).source
        #expect(source.contains("typealias Service = ShopAPI::StockService\n"), "\(source)")
        #expect(!source.contains("serviceWrittenWithoutItsModule"), "\(source)")
        #expect(!source.contains("// BeeHive:"), "\(source)")
    }

    @Test("a type annotated with two services gets its ServiceImplementation conformance from the first annotation")
    func twoServices() {
        let source = MacroExpansion.expand(
            "@BeeHiveService(ShopAPI.StockService.self)\n@BeeHiveService(ShopAPI.PriceService.self)\nstruct Till {}"
        ).source
        let extensions = source.split(separator: "\n").filter { $0.hasPrefix("extension Till") }
        #expect(extensions == ["extension Till: BeeHive::ServiceImplementation {", "extension Till {"], "\(source)")
    }

    @Test(
        "a freestanding annotation's type of one name is checked as the type written, in BeeHive's words",
        arguments: [
            (
                "#BeeHiveService(StockService.self, Shelf.self)", "implementationWrittenWithoutItsModule([Shelf].self)",
                "#BeeHiveService(…, Shelf.self): the implementation 'Shelf' written here is not 'App.Shelf', the "
                    + "type its record names: an implementation written without its module is taken as this module's "
                    + "(App)"
            ),
            (
                "#BeeHiveMod(LoginModule.self)", "moduleTypeWrittenWithoutItsModule([LoginModule].self)",
                "#BeeHiveMod(LoginModule.self): the module type 'LoginModule' written here is not 'App.LoginModule'"
            ),
            (
                "#BeeHiveRoute(\"app://x\", UserRoute.self)", "routeHandlerWrittenWithoutItsModule([UserRoute].self)",
                "#BeeHiveRoute(…, UserRoute.self): the route handler 'UserRoute' written here is not 'App.UserRoute'"
            ),
        ])
    func freestandingCheck(_ source: String, call: String, message: String) {
        let expanded = MacroExpansion.expand(source, freestanding: true).source
        let lines = expanded.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains(call), "\(expanded)")
        #expect(lines.contains { $0.hasPrefix("@available(*, unavailable, message: \"" + message) }, "\(expanded)")
        #expect(!expanded.contains("// BeeHive:"), "\(expanded)")
    }

    @Test("a freestanding annotation whose types are written with their modules has no check of the names written")
    func freestandingQualified() {
        for source in [
            "#BeeHiveService(ShopAPI.StockService.self, ShopServer.Shelf.self)", "#BeeHiveMod(Auth.LoginModule.self)",
        ] {
            let expanded = MacroExpansion.expand(source, freestanding: true).source
            #expect(!expanded.contains("WrittenWithoutItsModule"), "\(expanded)")
        }
    }
}
#endif
