/// One registered service: which implementation serves it, under which name, and from where.
public struct ServiceRegistration: Sendable, Hashable, CustomStringConvertible {
    /// The service's name: the protocol's module-qualified name, e.g. `App.UserTrackService`.
    public let service: String
    /// The registration's name, for services registered more than once under different names.
    public let name: String?
    /// The implementation: a type name, or a description of the factory.
    public let implementation: String
    /// Where the registration came from.
    public let source: RegistrationSource

    /// Creates a registration.
    public init(service: String, name: String? = nil, implementation: String, source: RegistrationSource) {
        self.service = service
        self.name = name
        self.implementation = implementation
        self.source = source
    }

    /// The service and its name as one string: `App.Cache` or `App.Cache[memory]`.
    public var displayName: String { name.map { "\(service)[\($0)]" } ?? service }

    public var description: String { "\(displayName) -> \(implementation) (\(source))" }
}
