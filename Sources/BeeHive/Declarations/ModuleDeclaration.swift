/// A module as declared by an annotation record, a `BeeHive.plist` entry or code.
public struct ModuleDeclaration: Sendable, Hashable, CustomStringConvertible {
    /// The module type's module-qualified name, e.g. `App.LoginModule`.
    public let name: String
    /// The module's level.
    public let level: ModuleLevel
    /// The module's priority within its level; higher starts first.
    public let priority: Int
    /// Whether the module's init event runs off the caller's thread.
    public let isAsync: Bool
    /// Where the declaration came from.
    public let source: RegistrationSource

    /// Creates a declaration.
    public init(
        name: String, level: ModuleLevel = .normal, priority: Int = 0, isAsync: Bool = false,
        source: RegistrationSource
    ) {
        self.name = name
        self.level = level
        self.priority = priority
        self.isAsync = isAsync
        self.source = source
    }

    public var description: String {
        "\(name) (level \(level), priority \(priority)\(isAsync ? ", async" : "")) from \(source)"
    }
}
