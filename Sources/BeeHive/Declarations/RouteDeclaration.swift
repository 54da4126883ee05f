/// A route as declared by an annotation record (`BH_ROUTE`): a URL pattern and the handler type's name.
public struct RouteDeclaration: Sendable, Hashable, CustomStringConvertible {
    /// The URL pattern, e.g. `app://user/:id`.
    public let pattern: String
    /// The handler type's module-qualified name.
    public let handler: String
    /// Where the declaration came from.
    public let source: RegistrationSource

    /// Creates a declaration.
    public init(pattern: String, handler: String, source: RegistrationSource) {
        self.pattern = pattern
        self.handler = handler
        self.source = source
    }

    public var description: String { "\(pattern) -> \(handler) (\(source))" }
}
