#if Macros
import SwiftDiagnostics
import SwiftSyntax

/// The shapes of type a record cannot name, told apart by their syntax before a metatype argument is read as a
/// name: a composition (`(A & B).self`), an existential or opaque type (`(any P).self`), a metatype (`P.Type.self`).
enum TypeShape {
    /// Refuses `base`, the part before `.self` of the argument `expression`, when its shape is one of those.
    ///
    /// - Parameter annotation: The annotation `expression` is the service of, which a fix-it may write once for each
    ///   protocol of a composition; `nil` for other roles.
    /// - Throws: `AnnotationDiagnostic`: `protocolComposition`, `existentialType`, `genericType` (a constrained
    ///   existential, `(any Tracker<Int>).self`) or `metatypeType`.
    static func check(
        _ base: ExprSyntax, of expression: ExprSyntax, role: String, annotation: WrittenAnnotation? = nil
    ) throws {
        var inner = base
        if let tuple = base.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
            only.label == nil
        {
            inner = only.expression
        }
        let found = expression.trimmedDescription
        if let members = compositionMembers(inner) {
            try refuseComposition(members, in: expression, role: role, annotation: annotation)
        }
        if let (keyword, constraint) = existential(inner) ?? existential(base) {
            if let open = constraint.firstIndex(of: "<") {
                let unconstrained = "\(constraint[..<open]).self"
                throw AnnotationDiagnostic(
                    code: .genericType,
                    message: "expected the \(role) as a plain type name, found the constrained type "
                        + "'\(keyword) \(constraint)' in '\(found)': records name types that the runtime looks up "
                        + "by name, without generic arguments; write '\(unconstrained)' to register it as any "
                        + "'\(constraint[..<open])', or register a constrained service in code, with "
                        + "'hive.register(service:impl:)'"
                ).at(expression, fixIts: [replacement(of: expression, with: unconstrained)])
            }
            let fixed = "\(constraint).self"
            throw AnnotationDiagnostic(
                code: .existentialType,
                message: "expected the \(role) as the protocol's own name followed by '.self', found "
                    + "'\(keyword) \(constraint)' in '\(found)': a record names the protocol itself; write "
                    + "'\(fixed)'"
            ).at(expression, fixIts: [replacement(of: expression, with: fixed)])
        }
        if let access = base.as(MemberAccessExprSyntax.self), let metatypeOf = access.base,
            ["Type", "Protocol"].contains(access.declName.baseName.text)
        {
            let fixed = "\(metatypeOf.trimmedDescription).self"
            throw AnnotationDiagnostic(
                code: .metatypeType,
                message: "expected the \(role) followed by '.self', found its metatype "
                    + "'\(base.trimmedDescription)' in '\(found)': write '\(fixed)'"
            ).at(expression, fixIts: [replacement(of: expression, with: fixed)])
        }
    }

    /// Protocols that constrain a type without being a service a record could name: a composition's members of
    /// these are left out of the fix.
    static let constraintProtocols: Set<String> = [
        "Sendable", "AnyObject", "Copyable", "Escapable", "BitwiseCopyable", "SendableMetatype",
    ]

    /// Refuses the composition of `members`, the argument `expression`. A composition of one service and constraints
    /// (`StockService & Sendable`) gets a fix-it that names the service; one of several services, a fix-it that
    /// writes `annotation` once for each of them, when `annotation` is given.
    static func refuseComposition(
        _ members: [String], in expression: ExprSyntax, role: String, annotation: WrittenAnnotation?
    ) throws -> Never {
        let names = members.joined(separator: " & ")
        let found = "found the composition '\(names)' in '\(expression.trimmedDescription)'"
        let protocols = members.filter { member in
            !member.hasPrefix("~")
                && !constraintProtocols.contains(member.split(separator: ".").last.map(String.init) ?? member)
        }
        let services = protocols.isEmpty ? members : protocols
        if services.count == 1, let service = services.first {
            let constraints = members.filter { $0 != service }.map { "'\($0)'" }.joined(separator: ", ")
            throw AnnotationDiagnostic(
                code: .protocolComposition,
                message: "expected one \(role), \(found): a record names the protocol itself, and \(constraints) "
                    + "constrain\(members.count == 2 ? "s" : "") it without being \(role)s; write '\(service).self'"
            ).at(expression, fixIts: [replacement(of: expression, with: service + ".self")])
        }
        let refined = services.map { $0.split(separator: ".").last.map(String.init) ?? $0 }.joined()
        var fixIts: [FixIt] = []
        if let annotation, services.count > 1 {
            fixIts.append(annotation.writtenOnce(for: services.map { $0 + ".self" }))
        }
        throw AnnotationDiagnostic(
            code: .protocolComposition,
            message: "expected one \(role), \(found): a record names one type, which the runtime looks up by its "
                + "name, and a composition has none; register the type once for each protocol, with one annotation "
                + "for each of " + services.map { "'\($0).self'" }.joined(separator: ", ")
                + ", or declare a protocol that refines them ('protocol \(refined): "
                + "\(services.joined(separator: ", ")) {}'), implement it and write '\(refined).self'"
        ).at(expression, fixIts: fixIts)
    }

    /// The members of a protocol composition written as an expression (`A & B`, unfolded or folded) or as a type
    /// (`any A & B`), or `nil` for anything else.
    static func compositionMembers(_ expression: ExprSyntax) -> [String]? {
        if let sequence = expression.as(SequenceExprSyntax.self) {
            let isComposition = sequence.elements.contains {
                $0.as(BinaryOperatorExprSyntax.self)?.operator.text == "&"
            }
            guard isComposition else { return nil }
            return sequence.elements.filter { !$0.is(BinaryOperatorExprSyntax.self) }.map(\.trimmedDescription)
        }
        if let infix = expression.as(InfixOperatorExprSyntax.self),
            infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text == "&"
        {
            return (compositionMembers(infix.leftOperand) ?? [infix.leftOperand.trimmedDescription])
                + (compositionMembers(infix.rightOperand) ?? [infix.rightOperand.trimmedDescription])
        }
        guard var type = expression.as(TypeExprSyntax.self)?.type else { return nil }
        if let existential = type.as(SomeOrAnyTypeSyntax.self) { type = existential.constraint }
        return type.as(CompositionTypeSyntax.self)?.elements.map(\.type.trimmedDescription)
    }

    /// The keyword (`any` or `some`) and the constraint of an existential or opaque type written as an expression,
    /// or `nil` for anything else. `any P` parses as a type; `some P` does not, in an expression, and is read from
    /// its text.
    static func existential(_ expression: ExprSyntax) -> (keyword: String, constraint: String)? {
        if let type = expression.as(TypeExprSyntax.self)?.type.as(SomeOrAnyTypeSyntax.self) {
            return (type.someOrAnySpecifier.text, type.constraint.trimmedDescription)
        }
        var text = expression.trimmedDescription
        if text.hasPrefix("(") && text.hasSuffix(")") { text = String(text.dropFirst().dropLast()) }
        guard text.hasPrefix("some ") else { return nil }
        return ("some", String(text.dropFirst("some ".count).drop { $0 == " " }))
    }

    /// A fix-it that replaces the argument `expression` with `text`.
    static func replacement(of expression: ExprSyntax, with text: String) -> FixIt {
        FixIt(
            message: AnnotationFixIt(message: "write '\(text)'"),
            changes: [
                .replace(
                    oldNode: Syntax(expression),
                    newNode: Syntax(
                        ExprSyntax("\(raw: text)").with(\.leadingTrivia, expression.leadingTrivia)
                            .with(\.trailingTrivia, expression.trailingTrivia)))
            ])
    }
}
#endif
