#if Macros
import SwiftDiagnostics
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The mistakes the macros report themselves, at the annotation, naming the types involved. Mistakes only the
/// type checker can see (a non-conforming implementation, an unknown type, a module that is no HiveModule) are
/// tested with the compiler in `Tests/BeeHiveIntegrationTests/Macros`.
@Suite("Macro diagnostics")
struct DiagnosticTests {
    /// An annotation the macro refuses, the diagnostic's identifier, and words its message must contain.
    struct Case: Sendable, CustomTestStringConvertible {
        let source: String
        let code: String
        let mentions: [String]
        var freestanding = false
        var testDescription: String { code + ": " + mentions.joined(separator: ", ") }
    }

    static let cases: [Case] = [
        Case(
            source: "@BeeHiveService(Tracker.self)\nstruct Box<T>: Tracker {}", code: "genericType",
            mentions: ["generic type 'Box<T>'", "register(service:impl:)"]),
        Case(
            source: "struct Outer<T> {\n    @BeeHiveService(Tracker.self)\n    struct Inner: Tracker {}\n}",
            code: "genericType", mentions: ["Inner'", "nested in a generic type", "<T>"]),
        Case(
            source: "func f() {\n    @BeeHiveService(Tracker.self)\n    struct Local: Tracker {}\n}", code: "localType",
            mentions: ["local type", "Local'", "file scope"]),
        Case(
            source: "@BeeHiveService(Tracker.self)\nprivate struct Hidden: Tracker {}", code: "privateType",
            mentions: ["private type 'Hidden'", "'App.Hidden'", "internal or public"]),
        Case(
            source: "@BeeHiveRoute(\"app://x\")\nfileprivate struct Hidden: RouteHandler {}", code: "privateType",
            mentions: ["fileprivate type 'Hidden'"]),
        Case(
            source: "private enum Outer {\n    @BeeHiveMod\n    final class M: HiveModule {}\n}", code: "privateType",
            mentions: ["'Outer.M'", "nested in a private declaration"]),
        Case(
            source: "@BeeHiveService((any Tracker).self)\nstruct T: Tracker {}", code: "existentialType",
            mentions: ["service protocol", "found 'any Tracker' in '(any Tracker).self'", "write 'Tracker.self'"]),
        Case(
            source: "@BeeHiveService((some Tracker).self)\nstruct T: Tracker {}", code: "existentialType",
            mentions: ["found 'some Tracker'", "write 'Tracker.self'"]),
        Case(
            source: "@BeeHiveService((StockService & PriceService).self)\nstruct T: StockService, PriceService {}",
            code: "protocolComposition",
            mentions: [
                "expected one service protocol", "found the composition 'StockService & PriceService'",
                "protocol StockServicePriceService: StockService, PriceService {}",
                "write 'StockServicePriceService.self'", "once for each protocol",
            ]),
        Case(
            source: "@BeeHiveService((any ShopAPI.StockService & Sendable).self)\nstruct T: Tracker {}",
            code: "protocolComposition",
            mentions: [
                "found the composition 'ShopAPI.StockService & Sendable'", "'Sendable' constrains it",
                "write 'ShopAPI.StockService.self'",
            ]),
        Case(
            source: "@BeeHiveService((any Tracker<Int>).self)\nstruct T: Tracker {}", code: "genericType",
            mentions: [
                "found the constrained type 'any Tracker<Int>'", "write 'Tracker.self' to register it as any 'Tracker'",
                "hive.register(service:impl:)",
            ]),
        Case(
            source: "@BeeHiveService(Tracker.Type.self)\nstruct T: Tracker {}", code: "metatypeType",
            mentions: ["found its metatype 'Tracker.Type'", "write 'Tracker.self'"]),
        Case(
            source: "@BeeHiveService(ShopAPI.StockService.Protocol.self)\nstruct T: Tracker {}",
            code: "metatypeType", mentions: ["'ShopAPI.StockService.Protocol'", "write 'ShopAPI.StockService.self'"]),
        Case(
            source: "#BeeHiveService((Tracker & Named).self, Console.self)", code: "protocolComposition",
            mentions: ["'Tracker & Named'"], freestanding: true),
        Case(
            source: "#BeeHiveService(Tracker.self, (any Console).self)", code: "existentialType",
            mentions: ["expected the implementation", "write 'Console.self'"], freestanding: true),
        Case(
            source: "@BeeHiveService(Tracker)\nstruct T: Tracker {}", code: "notATypeName",
            mentions: ["followed by '.self'", "found 'Tracker'"]),
        Case(
            source: "@BeeHiveService(Tracker<Int>.self)\nstruct T: Tracker {}", code: "genericType",
            mentions: ["found 'Tracker<Int>', a specialised generic type", "name a non-generic protocol"]),
        Case(
            source: "@BeeHiveService\nstruct T: Tracker {}", code: "notATypeName",
            mentions: ["service protocol as its first argument", "found none"]),
        Case(
            source: "@BeeHiveService(Tracker.self, name: formalName)\nstruct T: Tracker {}",
            code: "argumentNotLiteral", mentions: ["service name as a string literal", "found 'formalName'"]),
        Case(
            source: "@BeeHiveService(Tracker.self, rank: level)\nstruct T: Tracker {}", code: "argumentNotLiteral",
            mentions: ["rank as a decimal integer literal", "found 'level'"]),
        Case(
            source: "@BeeHiveService(Tracker.self, properties: defaults)\nstruct T: Tracker {}",
            code: "argumentNotLiteral", mentions: ["properties as a dictionary literal of strings", "found 'defaults'"]),
        Case(
            source: "@BeeHiveService(Tracker.self, properties: [\"a\": \"1\", \"a\": \"2\"])\nstruct T: Tracker {}",
            code: "argumentNotLiteral", mentions: ["properties' keys once and not empty", "again"]),
        Case(
            source: "@BeeHiveService(Tracker.self)\nprotocol Sub: Tracker {}", code: "notAType",
            mentions: ["a class, struct, enum or actor", "found 'protocol Sub'"]),
        Case(
            source: "@BeeHiveMod(level: .urgent)\nfinal class M: HiveModule {}", code: "unknownLevel",
            mentions: ["'.basic', '.normal', '.application'", "found '.urgent'"]),
        Case(
            source: "@BeeHiveMod(priority: high)\nfinal class M: HiveModule {}", code: "argumentNotLiteral",
            mentions: ["priority as a decimal integer literal", "found 'high'"]),
        Case(
            source: "@BeeHiveMod(async: isAsync)\nfinal class M: HiveModule {}", code: "argumentNotLiteral",
            mentions: ["async flag as 'true' or 'false'", "found 'isAsync'"]),
        Case(
            source: "@BeeHiveRoute(\"app://user/\\(id)\")\nstruct R: RouteHandler {}", code: "argumentNotLiteral",
            mentions: ["URL pattern as a string literal without interpolation"]),
        Case(
            source: "func f() {\n    #BeeHiveService(Tracker.self, Console.self)\n}", code: "misplaced",
            mentions: ["#BeeHiveService", "inside a function"], freestanding: true),
        Case(
            source: "#BeeHiveService(Console.self)", code: "notATypeName",
            mentions: ["two types, the service and its implementation", "found 1"], freestanding: true),
        Case(
            source: "#BeeHiveRoute(\"app://user\", handler)", code: "notATypeName",
            mentions: ["route handler", "found 'handler'"], freestanding: true),
        Case(
            source: "#BeeHiveMod(Box<Int>.self)", code: "genericType", mentions: ["'Box<Int>'"], freestanding: true),
        Case(
            source: "@BeeHiveAPI(\"2.x\")\npublic protocol Prices {}", code: "malformedVersion",
            mentions: ["MAJOR.MINOR or MAJOR.MINOR.PATCH", "found \"2.x\""]),
        Case(
            source: "enum Shop {\n    @BeeHiveAPI(\"1.0\")\n    protocol Prices {}\n}", code: "misplaced",
            mentions: ["a protocol declared at file scope", "'Prices'"]),
        Case(
            source: "@BeeHiveAPI(\"1.0\")\nstruct Prices {}", code: "notAType",
            mentions: ["attached to a protocol"]),
        Case(
            source: "@BeeHiveAPI(version)\nprotocol Prices {}", code: "argumentNotLiteral",
            mentions: ["API's version as a string literal"]),
        Case(
            source: "@BeeHiveServiceKey\nstruct Clock {}", code: "notAType",
            mentions: ["@BeeHiveServiceKey expected to be attached to a protocol", "struct Clock"]),
        Case(
            source: "enum Time {\n    @BeeHiveServiceKey\n    protocol Clock {}\n}", code: "misplaced",
            mentions: ["a protocol declared at file scope", "'Clock'"]),
        Case(
            source: "@BeeHiveServiceKey(\"Clock\")\nprotocol Clock {}", code: "argumentNotLiteral",
            mentions: ["expected no argument", "found '\"Clock\"'"]),
    ]

    @Test("each mistake is one error at the annotation, saying what was expected and what was found", arguments: cases)
    func diagnostic(_ testCase: Case) {
        let expansion = MacroExpansion.expand(testCase.source, freestanding: testCase.freestanding)
        #expect(expansion.diagnostics.count == 1, "\(expansion.diagnostics.map(\.message))")
        guard let diagnostic = expansion.diagnostics.first else { return }
        #expect(diagnostic.diagMessage.diagnosticID == MessageID(domain: "BeeHiveMacros", id: testCase.code))
        #expect(diagnostic.diagMessage.severity == .error)
        for mention in testCase.mentions {
            #expect(diagnostic.message.contains(mention), "\(diagnostic.message)")
        }
    }

    @Test("an existential or a metatype gets a fix-it that names the protocol itself", arguments: ["(any ", "("])
    func protocolFixIt(_ prefix: String) {
        let argument = prefix == "(" ? "Tracker.Type.self" : "(any Tracker).self"
        let message =
            prefix == "("
            ? "expected the service protocol followed by '.self', found its metatype 'Tracker.Type' in "
                + "'Tracker.Type.self': write 'Tracker.self'"
            : "expected the service protocol as the protocol's own name followed by '.self', found 'any Tracker' in "
                + "'(any Tracker).self': a record names the protocol itself; write 'Tracker.self'"
        MacroExpansion.assertExpansion(
            "@BeeHiveService(\(argument))\nstruct T: Tracker {}",
            expandedSource: "struct T: Tracker {}",
            diagnostics: [
                DiagnosticSpec(
                    message: message, line: 1, column: 17, fixIts: [FixItSpec(message: "write 'Tracker.self'")])
            ],
            applyFixIts: ["write 'Tracker.self'"],
            fixedSource: "@BeeHiveService(Tracker.self)\nstruct T: Tracker {}")
    }

    @Test("a composition of one protocol and constraints gets a fix-it that names the protocol")
    func constrainedProtocolFixIt() {
        MacroExpansion.assertExpansion(
            "@BeeHiveService((any StockService & Sendable).self)\nstruct T: StockService {}",
            expandedSource: "struct T: StockService {}",
            diagnostics: [
                DiagnosticSpec(
                    message: "expected one service protocol, found the composition 'StockService & Sendable' in "
                        + "'(any StockService & Sendable).self': a record names the protocol itself, and 'Sendable' "
                        + "constrains it without being service protocols; write 'StockService.self'",
                    line: 1, column: 17, fixIts: [FixItSpec(message: "write 'StockService.self'")])
            ],
            applyFixIts: ["write 'StockService.self'"],
            fixedSource: "@BeeHiveService(StockService.self)\nstruct T: StockService {}")
    }

    @Test("a constrained existential gets a fix-it that names its protocol")
    func constrainedExistentialFixIt() {
        let expansion = MacroExpansion.expand("@BeeHiveService((any Tracker<Int>).self)\nstruct T: Tracker {}")
        let fixIts = expansion.diagnostics.flatMap(\.fixIts).map(\.message.message)
        #expect(fixIts == ["write 'Tracker.self'"], "\(expansion.diagnostics.map(\.message))")
    }

    @Test("a composition of services gets a fix-it that writes the annotation once for each, with its arguments")
    func compositionFixIt() {
        let message =
            "expected one service protocol, found the composition 'ShopAPI.StockService & PriceService' in "
            + "'(ShopAPI.StockService & PriceService).self': a record names one type, which the runtime looks up by "
            + "its name, and a composition has none; register the type once for each protocol, with one annotation "
            + "for each of 'ShopAPI.StockService.self', 'PriceService.self', or declare a protocol that refines them "
            + "('protocol StockServicePriceService: ShopAPI.StockService, PriceService {}'), implement it and write "
            + "'StockServicePriceService.self'"
        MacroExpansion.assertExpansion(
            """
            enum Shop {
                @BeeHiveService((ShopAPI.StockService & PriceService).self, rank: 2)
                struct Till: StockService, PriceService {}
            }
            """,
            expandedSource: """
                enum Shop {
                    struct Till: StockService, PriceService {}
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: message, line: 2, column: 21,
                    fixIts: [FixItSpec(message: "register the type once for each protocol")])
            ],
            applyFixIts: ["register the type once for each protocol"],
            fixedSource: """
                enum Shop {
                    @BeeHiveService(ShopAPI.StockService.self, rank: 2)
                    @BeeHiveService(PriceService.self, rank: 2)
                    struct Till: StockService, PriceService {}
                }
                """)
    }

    @Test("a freestanding composition of services gets a fix-it that writes one registration for each")
    func freestandingCompositionFixIt() {
        let source = "#BeeHiveService((StockService & PriceService).self, Till.self, name: \"x\")"
        let expansion = MacroExpansion.expand(source, freestanding: true)
        let fixIt = expansion.diagnostics.first?.fixIts.first
        #expect(fixIt?.message.message == "register the type once for each protocol")
        let edits = fixIt?.edits.map(\.replacement) ?? []
        #expect(
            edits == [
                "#BeeHiveService(StockService.self, Till.self, name: \"x\")\n"
                    + "#BeeHiveService(PriceService.self, Till.self, name: \"x\")"
            ], "\(edits)")
    }

    @Test("a private type gets a fix-it that makes it internal")
    func privateFixIt() {
        MacroExpansion.assertExpansion(
            "@BeeHiveService(Tracker.self)\nprivate struct Hidden: Tracker {}",
            expandedSource: "private struct Hidden: Tracker {}",
            diagnostics: [
                DiagnosticSpec(
                    message: "@BeeHiveService cannot register the private type 'Hidden': the runtime finds types by "
                        + "their name 'App.Hidden', and a private type's name is private to its file; make it "
                        + "internal or public",
                    line: 2, column: 1, fixIts: [FixItSpec(message: "make 'Hidden' internal")])
            ],
            applyFixIts: ["make 'Hidden' internal"],
            fixedSource: "@BeeHiveService(Tracker.self)\ninternal struct Hidden: Tracker {}")
    }
}
#endif
