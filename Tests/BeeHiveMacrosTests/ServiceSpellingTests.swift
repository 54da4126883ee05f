#if Macros
import Testing

/// How an expansion names the service: once, in the conformance check's `Service`, with the module the annotation
/// wrote or, for a name of one component, the current module, beside BeeHive's words for when that guess is wrong;
/// and the accessor's debug-build check that the runtime names the service as the record does (a typealias does not).
@Suite("Service spelling: the module of a service named without one")
struct ServiceSpellingTests {
    static let unqualified = "@BeeHiveService(StockService.self)\nstruct Shelf: StockService {}"
    static let qualified = "@BeeHiveService(ShopAPI.StockService.self)\nstruct Shelf: StockService {}"

    @Test("a service of one name is checked as the current module's, with BeeHive's words on the line above")
    func unqualifiedService() throws {
        let source = MacroExpansion.expand(Self.unqualified).source
        let lines = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let alias = try #require(lines.firstIndex { $0.hasPrefix("typealias Service = ") })
        #expect(lines[alias] == "typealias Service = App::StockService")
        let note = lines[alias - 1]
        #expect(note.hasPrefix("// BeeHive: @BeeHiveService(StockService.self) names the service 'App.StockService'"))
        for words in [
            "taken as this module's (App)", "If App declares no 'StockService'", "'<Module>.StockService.self'",
            "the compiler's note suggests",
        ] {
            #expect(note.contains(words), "\(note)")
        }
        #expect(lines.filter { $0.contains("App::StockService") }.count == 1, "named once: \(source)")
    }

    @Test("a service written with its module is checked in that module, with no words to add")
    func qualifiedService() {
        let source = MacroExpansion.expand(Self.qualified).source
        #expect(source.contains("typealias Service = ShopAPI::StockService\n"), "\(source)")
        #expect(!source.contains("// BeeHive:"), "\(source)")
    }

    @Test("the accessor asserts that the runtime names the service as the record does, naming the fix")
    func runtimeNameCheck() {
        let source = MacroExpansion.expand("@BeeHiveService(Stock.self)\nstruct Shelf: Stock {}").source
        let check = "Swift::_typeName(__macro_local_23BeeHiveConformanceCheckfMu_.Service.self, qualified: true)"
        #expect(source.contains("Swift::assert(\(check) == \"App.Stock\", "), "\(source)")
        #expect(
            source.contains(
                "\"App/Tracker.swift:1: @BeeHiveService(Stock.self) records the service as 'App.Stock', but the "
                    + "runtime names that type '\\(\(check))' (a typealias names the type it aliases, and the runtime "
                    + "knows only the type's own name); write '\\(\(check)).self'\")\n"), "\(source)")
        #expect(source.contains("return BeeHive::_BeeHiveTypedRecord.write(.service("), "\(source)")
    }
}
#endif
