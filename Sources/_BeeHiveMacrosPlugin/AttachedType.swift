#if Macros
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// The type an attached annotation is written on, checked: records name types that the runtime finds by their
/// module-qualified name, so the type may not be generic, local or private.
struct AttachedType {
    let name: QualifiedTypeName

    /// Checks `declaration` (annotated with `attribute`) and its enclosing declarations.
    ///
    /// - Parameters:
    ///   - kinds: What the annotation may be attached to, for the message ("a class, struct or enum").
    /// - Throws: `AnnotationDiagnostic`: `misplaced`, `genericType`, `localType` or `privateType`.
    init(
        _ declaration: some DeclGroupSyntax, type: some TypeSyntaxProtocol, attribute: AttributeSyntax,
        site: AnnotationSite, context: some MacroExpansionContext
    ) throws {
        let macro = "@" + attribute.attributeName.trimmedDescription
        let typeName = type.trimmedDescription
        guard let path = Self.path(of: TypeSyntax(type)) else {
            throw AnnotationDiagnostic(
                code: .genericType,
                message: "\(macro) expected a non-generic named type, found '\(typeName)'"
            ).at(attribute)
        }
        if let generics = declaration.asProtocol(WithGenericParametersSyntax.self)?.genericParameterClause {
            throw AnnotationDiagnostic(
                code: .genericType,
                message: "\(macro) cannot register the generic type '\(typeName)\(generics.trimmedDescription)': "
                    + "records name types that the runtime looks up by name; register a specialisation in code, "
                    + "with 'hive.register(service:impl:)'"
            ).at(generics)
        }
        if let modifier = Self.privateModifier(declaration.modifiers) {
            let fixIt = FixIt(
                message: AnnotationFixIt(message: "make '\(typeName)' internal"),
                changes: [
                    .replace(
                        oldNode: Syntax(modifier.name),
                        newNode: Syntax(
                            TokenSyntax.keyword(.internal).with(\.trailingTrivia, modifier.name.trailingTrivia)
                                .with(\.leadingTrivia, modifier.name.leadingTrivia)))
                ])
            throw AnnotationDiagnostic(
                code: .privateType,
                message: "\(macro) cannot register the \(modifier.name.text) type '\(typeName)': the runtime finds "
                    + "types by their name '\(site.module).\(path.joined(separator: "."))', and a "
                    + "\(modifier.name.text) type's name is private to its file; make it internal or public"
            ).at(modifier, fixIts: [fixIt])
        }
        for enclosing in context.lexicalContext {
            if let group = enclosing.asProtocol(DeclGroupSyntax.self) {
                if let generics = group.asProtocol(WithGenericParametersSyntax.self)?.genericParameterClause {
                    throw AnnotationDiagnostic(
                        code: .genericType,
                        message: "\(macro) cannot register '\(typeName)': it is nested in a generic type "
                            + "(with \(generics.trimmedDescription)), which the runtime cannot look up by name"
                    ).at(attribute)
                }
                if let modifier = Self.privateModifier(group.modifiers) {
                    throw AnnotationDiagnostic(
                        code: .privateType,
                        message: "\(macro) cannot register '\(typeName)': it is nested in a \(modifier.name.text) "
                            + "declaration, whose types' names are private to their file; make it internal or public"
                    ).at(attribute)
                }
            } else {
                throw AnnotationDiagnostic(
                    code: .localType,
                    message: "\(macro) cannot register the local type '\(typeName)': a type declared in a function "
                        + "or closure has no name the runtime can look up; declare it at file scope or in a type"
                ).at(attribute)
            }
        }
        name = QualifiedTypeName(module: site.module, path: path)
    }

    /// The components of a type name (`Outer.Inner`), or `nil` if it has generic arguments or is no plain name.
    static func path(of type: TypeSyntax) -> [String]? {
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            return [QualifiedTypeName.unescaped(identifier.name)]
        }
        if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil,
            let base = path(of: member.baseType)
        {
            return base + [QualifiedTypeName.unescaped(member.name)]
        }
        return nil
    }

    /// The `private` or `fileprivate` modifier among `modifiers`, if any (`private(set)` does not count).
    static func privateModifier(_ modifiers: DeclModifierListSyntax) -> DeclModifierSyntax? {
        modifiers.first { modifier in
            (modifier.name.tokenKind == .keyword(.private) || modifier.name.tokenKind == .keyword(.fileprivate))
                && modifier.detail == nil
        }
    }
}
#endif
