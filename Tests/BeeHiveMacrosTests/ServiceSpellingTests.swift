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
        "a freestanding annotation's type of one name has BeeHive's words on the line above the accessor's write",
        arguments: [
            (
                "#BeeHiveService(StockService.self, Shelf.self)",
                "// BeeHive: #BeeHiveService(…, Shelf.self) names the implementation 'App.Shelf': an implementation "
                    + "written without its module is taken as this module's (App). If App declares no 'Shelf', the "
                    + "type is another module's: write it with that module's name, '<Module>.Shelf.self'"
            ),
            ("#BeeHiveMod(LoginModule.self)", "// BeeHive: #BeeHiveMod(LoginModule.self) names the module type "),
            ("#BeeHiveRoute(\"app://x\", UserRoute.self)", "// BeeHive: #BeeHiveRoute(…, UserRoute.self) names "),
        ])
    func freestandingNote(_ source: String, note: String) throws {
        let lines = MacroExpansion.expand(source, freestanding: true).source.split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let write = try #require(lines.firstIndex { $0.contains("BeeHive::_BeeHiveTypedRecord.write(") })
        #expect(lines[write - 1].hasPrefix(note), "\(lines[write - 1])")
    }

    @Test("a freestanding annotation whose types are written with their modules has no words to add")
    func freestandingQualified() {
        for source in [
            "#BeeHiveService(ShopAPI.StockService.self, ShopServer.Shelf.self)", "#BeeHiveMod(Auth.LoginModule.self)",
        ] {
            let expanded = MacroExpansion.expand(source, freestanding: true).source
            #expect(!expanded.contains("// BeeHive:"), "\(expanded)")
        }
    }
}
#endif
