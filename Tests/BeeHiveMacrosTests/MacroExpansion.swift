#if Macros
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import _BeeHiveMacrosPlugin

/// Expands BeeHive's macros in test sources, as the compiler would in module `App`, file `App/Tracker.swift`.
enum MacroExpansion {
    /// The macros by the names the `BeeHiveMacros` module declares them with; the service macro adds
    /// `ServiceImplementation` (as for a type that does not declare it).
    static let specs: [String: MacroSpec] = [
        "BeeHiveService": MacroSpec(type: ServiceMacro.self, conformances: ["ServiceImplementation"]),
        "BeeHiveMod": MacroSpec(type: ModuleMacro.self),
        "BeeHiveRoute": MacroSpec(type: RouteMacro.self),
        "BeeHiveAPI": MacroSpec(type: APIMacro.self),
        "BeeHiveServiceKey": MacroSpec(type: ServiceKeyMacro.self),
    ]

    /// The freestanding forms, expanded separately (one name per macro in a spec table).
    static let freestandingSpecs: [String: MacroSpec] = [
        "BeeHiveService": MacroSpec(type: ServiceDeclarationMacro.self),
        "BeeHiveMod": MacroSpec(type: ModuleDeclarationMacro.self),
        "BeeHiveRoute": MacroSpec(type: RouteDeclarationMacro.self),
    ]

    /// A record section's contents as one expansion declares it: the section's name and the integers of its
    /// `InlineArray` literal.
    struct SectionLiteral: Equatable {
        let section: String
        let values: [UInt64]
    }

    /// The expanded source and the diagnostics of expanding `source`.
    static func expand(_ source: String, freestanding: Bool = false) -> (source: String, diagnostics: [Diagnostic]) {
        let file = Parser.parse(source: source)
        let context = BasicMacroExpansionContext(
            sourceFiles: [file: .init(moduleName: "App", fullFilePath: "/work/App/Sources/App/Tracker.swift")])
        let expanded = file.expand(
            macroSpecs: freestanding ? freestandingSpecs : specs,
            contextGenerator: { node in
                BasicMacroExpansionContext(sharingWith: context, lexicalContext: node.allMacroLexicalContexts())
            },
            indentationWidth: .spaces(4))
        return (expanded.description, context.diagnostics)
    }

    /// Every `@section` declaration with an `InlineArray` literal in `source`, in order.
    static func sectionLiterals(in source: String) -> [SectionLiteral] {
        let collector = SectionCollector(viewMode: .sourceAccurate)
        collector.walk(Parser.parse(source: source))
        return collector.literals
    }

    /// The JSON text of the one record in the expansion of `source` (checking that its bytes end with the only 0).
    static func recordText(_ source: String, freestanding: Bool = false) -> String? {
        let expansion = expand(source, freestanding: freestanding)
        #expect(expansion.diagnostics.isEmpty, "\(expansion.diagnostics.map(\.message))")
        let records = sectionLiterals(in: expansion.source).filter { $0.section.hasPrefix("beehive_") }
        guard records.count == 1, let bytes = records.first?.values else {
            Issue.record("expected one record, found \(records.count): \(expansion.source)")
            return nil
        }
        #expect(bytes.last == 0, "a record ends with 0x00")
        #expect(bytes.dropLast().allSatisfy { $0 != 0 && $0 < 256 }, "a record's other bytes are 1...255")
        return String(decoding: bytes.dropLast().map { UInt8($0) }, as: UTF8.self)
    }

    /// Asserts the full expansion of `source`, reporting differences as Swift Testing issues.
    static func assertExpansion(
        _ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [], applyFixIts: [String]? = nil,
        fixedSource: String? = nil, freestanding: Bool = false,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        assertMacroExpansion(
            source, expandedSource: expandedSource, diagnostics: diagnostics,
            macroSpecs: freestanding ? freestandingSpecs : specs, applyFixIts: applyFixIts, fixedSource: fixedSource,
            testModuleName: "App", testFileName: "Tracker.swift",
            failureHandler: { failure in
                Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
            }
        )
    }
}

/// Finds `@section("…")` variables whose initialiser is an array literal of integers.
private final class SectionCollector: SyntaxVisitor {
    var literals: [MacroExpansion.SectionLiteral] = []

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        let section = node.attributes.compactMap { element -> String? in
            guard let attribute = element.as(AttributeSyntax.self),
                attribute.attributeName.trimmedDescription == "section",
                let argument = attribute.arguments?.as(LabeledExprListSyntax.self)?.first,
                let literal = argument.expression.as(StringLiteralExprSyntax.self)
            else { return nil }
            return literal.representedLiteralValue
        }.first
        if let section, let binding = node.bindings.first,
            let array = binding.initializer?.value.as(ArrayExprSyntax.self)
        {
            let values = array.elements.compactMap { element in
                element.expression.as(IntegerLiteralExprSyntax.self).flatMap { UInt64($0.literal.text) }
            }
            literals.append(.init(section: section, values: values))
        }
        return .skipChildren
    }
}
#endif
