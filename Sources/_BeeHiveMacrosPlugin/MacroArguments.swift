#if Macros
import SwiftSyntax

/// The arguments of an annotation, by label (`nil` for the unlabelled ones, in order), with readers that accept
/// literals only: a macro sees source text, not values.
struct MacroArguments {
    let macro: String
    let unlabelled: [ExprSyntax]
    let labelled: [String: ExprSyntax]

    init(_ list: LabeledExprListSyntax?, macro: String) {
        self.macro = macro
        var unlabelled: [ExprSyntax] = []
        var labelled: [String: ExprSyntax] = [:]
        for argument in list ?? [] {
            if let label = argument.label?.text {
                labelled[label] = argument.expression
            } else {
                unlabelled.append(argument.expression)
            }
        }
        self.unlabelled = unlabelled
        self.labelled = labelled
    }

    /// The string literal `expression` holds (no interpolation).
    ///
    /// - Throws: `AnnotationDiagnostic` (`argumentNotLiteral`) for anything else.
    func string(_ expression: ExprSyntax, role: String) throws -> String {
        guard let literal = expression.as(StringLiteralExprSyntax.self), let value = literal.representedLiteralValue
        else {
            throw AnnotationDiagnostic(
                code: .argumentNotLiteral,
                message: "\(macro) expected the \(role) as a string literal without interpolation, "
                    + "found '\(expression.trimmedDescription)'"
            ).at(expression)
        }
        return value
    }

    /// The integer literal `expression` holds, with an optional `-`.
    ///
    /// - Throws: `AnnotationDiagnostic` (`argumentNotLiteral`) for anything else.
    func integer(_ expression: ExprSyntax, role: String) throws -> Int64 {
        var text = expression.trimmedDescription
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-",
            let literal = prefix.expression.as(IntegerLiteralExprSyntax.self)
        {
            text = "-" + literal.literal.text
        } else if let literal = expression.as(IntegerLiteralExprSyntax.self) {
            text = literal.literal.text
        } else {
            text = ""
        }
        guard let value = Int64(text.filter { $0 != "_" }) else {
            throw AnnotationDiagnostic(
                code: .argumentNotLiteral,
                message: "\(macro) expected the \(role) as a decimal integer literal (such as 100), "
                    + "found '\(expression.trimmedDescription)'"
            ).at(expression)
        }
        return value
    }

    /// The dictionary literal of string literals `expression` holds (`["region": "eu"]`, or `[:]`), in the order
    /// written.
    ///
    /// - Throws: `AnnotationDiagnostic` (`argumentNotLiteral`) for anything else, an empty key or a key given twice.
    func strings(_ expression: ExprSyntax, role: String) throws -> [(key: String, value: String)] {
        guard let dictionary = expression.as(DictionaryExprSyntax.self) else {
            throw AnnotationDiagnostic(
                code: .argumentNotLiteral,
                message: "\(macro) expected the \(role) as a dictionary literal of strings (such as "
                    + "[\"region\": \"eu\"]), found '\(expression.trimmedDescription)'"
            ).at(expression)
        }
        guard case .elements(let elements) = dictionary.content else { return [] }
        var pairs: [(key: String, value: String)] = []
        for element in elements {
            let key = try string(element.key, role: "\(role)' key")
            guard !key.isEmpty, !pairs.contains(where: { $0.key == key }) else {
                throw AnnotationDiagnostic(
                    code: .argumentNotLiteral,
                    message: "\(macro) expected each of the \(role)' keys once and not empty, found "
                        + "'\(element.key.trimmedDescription)' \(key.isEmpty ? "empty" : "again")"
                ).at(element.key)
            }
            pairs.append((key, try string(element.value, role: "value of \(role)' key \"\(key)\"")))
        }
        return pairs
    }

    /// The boolean literal `expression` holds.
    ///
    /// - Throws: `AnnotationDiagnostic` (`argumentNotLiteral`) for anything else.
    func boolean(_ expression: ExprSyntax, role: String) throws -> Bool {
        guard let literal = expression.as(BooleanLiteralExprSyntax.self) else {
            throw AnnotationDiagnostic(
                code: .argumentNotLiteral,
                message: "\(macro) expected the \(role) as 'true' or 'false', found '\(expression.trimmedDescription)'"
            ).at(expression)
        }
        return literal.literal.tokenKind == .keyword(.true)
    }
}
#endif
