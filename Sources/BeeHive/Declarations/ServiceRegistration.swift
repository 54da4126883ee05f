/// One registered service: which implementation serves it, under which name and rank, and from where.
public struct ServiceRegistration: Sendable, Hashable, CustomStringConvertible {
    /// The service's name: the protocol's module-qualified name, e.g. `App.UserTrackService`.
    public var service: String { storage.service }
    /// The registration's name, for services registered more than once under different names.
    public var name: String? { storage.name }
    /// The implementation: a type name, or a description of the factory.
    public var implementation: String { storage.implementation }
    /// Where the registration came from.
    public var source: RegistrationSource { storage.source }
    /// Its rank among the registrations of the same service and name: the highest serves, the earliest of equal
    /// ranks first; the others wait and take over, highest first, when it leaves (a plugin retired or upgraded).
    /// 0 unless the registration says otherwise; registrations of equal rank are duplicates, as BeeHive's are.
    public var rank: Int { storage.rank }
    /// Properties that say what this implementation is (`["region": "eu"]`), for
    /// ``Hive/services(_:where:)-(Service.Type,_)``; empty unless the registration says otherwise.
    public var properties: [String: String] { storage.properties }
    /// The version of the service's API (`@BeeHiveAPI`) the implementation was built against, `2.1.0`; `nil` when
    /// the protocol declared none where it was compiled, or the record does not say (a C record without `"api"`).
    public var apiVersion: String? { storage.apiVersion }

    /// The loaded image the registration came from (`source.imageID`), kept apart: Swift 6.3.1's optimizer
    /// (CopyPropagation) crashes on `registration.source.imageID` in a loop over registrations.
    var imageID: UInt64? { storage.imageID }

    /// The fields, in one immutable object: a registration is copied with one retain (the registry, its batches and
    /// every first use copy it), not one per string.
    private let storage: Storage

    private final class Storage: Sendable {
        let service: String
        let name: String?
        let implementation: String
        let source: RegistrationSource
        let rank: Int
        let properties: [String: String]
        let apiVersion: String?
        let imageID: UInt64?

        init(
            service: String, name: String?, implementation: String, source: RegistrationSource, rank: Int,
            properties: [String: String], apiVersion: String?
        ) {
            self.service = service
            self.name = name
            self.implementation = implementation
            self.source = source
            self.rank = rank
            self.properties = properties
            self.apiVersion = apiVersion
            imageID = source.imageID
        }
    }

    /// Creates a registration.
    ///
    /// - Parameters:
    ///   - service: The service's module-qualified name.
    ///   - name: The registration's name, if the service has several.
    ///   - implementation: The implementation's type name, or a description of the factory.
    ///   - source: Where the registration came from.
    ///   - rank: Its rank among the registrations of the same service and name; higher serves first.
    ///   - properties: What this implementation is, for ``Hive/services(_:where:)-(Service.Type,_)``.
    ///   - apiVersion: The version of the service's API the implementation was built against, if known.
    public init(
        service: String, name: String? = nil, implementation: String, source: RegistrationSource, rank: Int = 0,
        properties: [String: String] = [String: String](), apiVersion: String? = nil
    ) {
        storage = Storage(
            service: service, name: name, implementation: implementation, source: source, rank: rank,
            properties: properties, apiVersion: apiVersion)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.service == rhs.service && lhs.name == rhs.name && lhs.implementation == rhs.implementation
                && lhs.source == rhs.source && lhs.rank == rhs.rank && lhs.properties == rhs.properties
                && lhs.apiVersion == rhs.apiVersion)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(service)
        hasher.combine(name)
        hasher.combine(implementation)
        hasher.combine(source)
        hasher.combine(rank)
        hasher.combine(properties)
        hasher.combine(apiVersion)
    }

    /// The service and its name as one string: `App.Cache` or `App.Cache[memory]`.
    public var displayName: String { name.map { "\(service)[\($0)]" } ?? service }

    public var description: String {
        let rank = rank == 0 ? "" : ", rank \(rank)"
        return "\(displayName) -> \(implementation) (\(source)\(rank))"
    }
}
