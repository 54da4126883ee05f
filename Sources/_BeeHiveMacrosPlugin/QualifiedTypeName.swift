#if Macros
import SwiftSyntax

/// A module-qualified Swift type name, as `_typeName(T.self, qualified: true)` prints it (`App.Outer.Inner`),
/// and the spelling with a module selector (`App::Outer.Inner`) that has the compiler check it.
struct QualifiedTypeName: Equatable {
    /// The module.
    let module: String
    /// The type's path inside its module: `["Outer", "Inner"]`.
    let path: [String]
    /// Whether the annotation wrote the module: `false` for a name of one component (`Clock`), which the macro takes
    /// as the current module's and the compiler checks.
    var moduleWasWritten = true

    /// The name as records write it: `App.Outer.Inner`.
    var recordName: String { ([module] + path).joined(separator: ".") }

    /// The name with a module selector, which the compiler resolves in `module` only: `App::Outer.Inner`.
    var checkedSpelling: String { module + "::" + path.map(Self.escaped).joined(separator: ".") }

    /// For a name written without its module, members of a type of the expansion that turn a wrong guess of its
    /// module into an error in our words, where `alias` is a typealias of ``checkedSpelling`` in that type:
    /// "'serviceWrittenWithoutItsModule' is unavailable: @BeeHiveService(StockService.self): the service
    /// 'StockService' written here is not 'App.StockService', the type its record names: …; write it with the module
    /// that declares it, '<Module>.StockService.self' …". Empty when the annotation wrote the module.
    ///
    /// A macro cannot know where a name is declared, and the compiler's own error for the name it does not find in
    /// this module stays ("'StockService' is not imported through module 'App'", with the note "did you mean module
    /// 'ShopAPI'?"); this error stands beside it. The name as written (`[StockService].self`, found where the
    /// annotation is) is passed to two overloads: one whose parameter is `[Service].Type`, which does not exist when
    /// `Service` does not, or differs when the name written is another type; and an unavailable one, which takes any
    /// type, whose message is the error. An array's metatype is spelled the same for a protocol, a composition, a
    /// class and a struct.
    ///
    /// - Parameters:
    ///   - written: The annotation as written, for the message: `@BeeHiveService(StockService.self)`.
    ///   - role: What the type is to the annotation: "service", "implementation", "module type", "route handler".
    ///   - noun: What such a type is: "protocol" or "type".
    func writtenNameCheck(alias: String, written: String, role: String, noun: String) -> String {
        guard !moduleWasWritten, let name = path.first else { return "" }
        let article = role.first.map { "aeiou".contains($0) } == true ? "an" : "a"
        let words = role.split(separator: " ")
        let capitalised = words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }
        let function = (words.first.map(String.init) ?? "") + capitalised.joined() + "WrittenWithoutItsModule"
        let message = Annotation.swiftStringContents(
            "\(written): the \(role) '\(name)' written here is not '\(recordName)', the type its record names: "
                + "\(article) \(role) written without its module is taken as this module's (\(module)); write it with "
                + "the module that declares it, '<Module>.\(name).self' (the compiler's note 'did you mean module' "
                + "names it), and a nested \(noun) with its enclosing types")
        return """
                static func \(function)(_ written: [\(alias)].Type) {}
                @available(*, unavailable, message: "\(message)")
                static func \(function)(_ written: Any.Type) {}
                static func check\(alias)Written() { \(function)([\(Self.escaped(name))].self) }

            """
    }

    /// A type of the expansion, `private` at file scope, whose members are
    /// ``writtenNameCheck(alias:written:role:noun:)`` for a freestanding annotation's type (`#BeeHiveMod`'s,
    /// `#BeeHiveRoute`'s); `nil` when the annotation wrote the module.
    func writtenNameCheckType(
        named typeName: String, placement: Annotation.Placement, written: String, role: String
    ) -> DeclSyntax? {
        let check = writtenNameCheck(alias: "Named", written: written, role: role, noun: "type")
        guard !check.isEmpty else { return nil }
        let access = placement == .member ? "" : "private "
        return """
            \(raw: access)enum \(raw: typeName) {
                typealias Named = \(raw: checkedSpelling)
            \(raw: check)}
            """
    }

    /// An identifier in backticks if it needs them (a keyword such as `Type` or `Protocol` as a name).
    static func escaped(_ identifier: String) -> String {
        let keywords: Set<String> = ["Type", "Protocol", "self", "Self", "init", "class", "struct", "enum", "protocol"]
        return keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// An identifier without backticks, as the runtime prints it.
    static func unescaped(_ token: TokenSyntax) -> String {
        var text = token.text
        if text.hasPrefix("`") && text.hasSuffix("`") && text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        return text
    }

    /// The name of the type in a metatype expression `T.self` given as a macro argument.
    ///
    /// A name of one component is the current module's. A dotted name starts with its module: `PluginAPI.Greeter`
    /// is `Greeter` of module `PluginAPI`, and a type nested in a type of the current module is written with the
    /// module's name first (`App.Outer.Inner`). The compiler checks the module through ``checkedSpelling``.
    ///
    /// - Parameter annotation: The annotation whose service `expression` is, for a fix-it that rewrites it; `nil`
    ///   for other roles.
    /// - Throws: `AnnotationDiagnostic` (`notATypeName`, `genericType`, `protocolComposition`, `existentialType`,
    ///   `metatypeType`) when `expression` is no such name.
    static func parse(
        metatype expression: ExprSyntax, currentModule: String, role: String, annotation: WrittenAnnotation? = nil
    ) throws -> Self {
        guard let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
            let base = member.base
        else {
            throw AnnotationDiagnostic(
                code: .notATypeName,
                message: "expected the \(role) as a type name followed by '.self' (such as 'UserTrackService.self'), "
                    + "found '\(expression.trimmedDescription)'"
            ).at(expression)
        }
        try TypeShape.check(base, of: expression, role: role, annotation: annotation)
        var components: [String] = []
        var current: ExprSyntax? = base
        while let node = current {
            if let reference = node.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil {
                components.insert(unescaped(reference.baseName), at: 0)
                current = nil
            } else if let access = node.as(MemberAccessExprSyntax.self), access.declName.argumentNames == nil,
                let inner = access.base
            {
                components.insert(unescaped(access.declName.baseName), at: 0)
                current = inner
            } else if node.is(GenericSpecializationExprSyntax.self) {
                throw AnnotationDiagnostic(
                    code: .genericType,
                    message: "expected the \(role) as a plain type name, found '\(base.trimmedDescription)', a "
                        + "specialised generic type: records name types that the runtime can look up by name, and "
                        + "those are not generic; name a non-generic protocol, or register a specialisation in code, "
                        + "with 'hive.register(service:impl:)'"
                ).at(node)
            } else {
                throw AnnotationDiagnostic(
                    code: .notATypeName,
                    message: "expected the \(role) as a plain type name followed by '.self' "
                        + "(such as 'UserTrackService.self' or 'PluginAPI.Greeter.self'), "
                        + "found '\(expression.trimmedDescription)'"
                ).at(expression)
            }
        }
        if components.count == 1 { return Self(module: currentModule, path: components, moduleWasWritten: false) }
        return Self(module: components[0], path: Array(components.dropFirst()))
    }
}
#endif
