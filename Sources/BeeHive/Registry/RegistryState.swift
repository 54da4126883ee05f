import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The key services are registered under: the service's name and the registration's name.
struct ServiceKey: Hashable {
    let service: String
    let name: String?
}

/// The key of the typed-lookup index: the service type's identity and the registration's name.
struct TypeKey: Hashable {
    let type: ObjectIdentifier
    let name: String?
}

/// How a registration makes instances.
enum Provider {
    /// An implementation type known by name, not looked up yet.
    case typeName(String)
    /// An implementation type.
    case implementation(any ServiceImplementation.Type)
    /// A factory closure.
    case factory(ServiceScope, @Sendable (Hive) throws -> Any)
    /// A type name that did not resolve; the error is kept so it is reported once. An unknown type is
    /// looked up again after the loader loaded more images than `loadedImages`.
    case unresolvable(HiveError, loadedImages: UInt64?)
}

/// The shared instance of a singleton registration.
enum InstanceSlot {
    case empty
    case creating(CreationTicket)
    case ready(Any)
}

/// Marks an instance being created: other threads wait for it, the creating thread must not.
final class CreationTicket: @unchecked Sendable {
    private let thread = pthread_self()
    private let group = DispatchGroup()

    init() { group.enter() }
    func finish() { group.leave() }
    func wait() { group.wait() }
    var isOnCurrentThread: Bool { pthread_equal(thread, pthread_self()) != 0 }
}

/// One registered service. Its mutable fields are guarded by the hive's lock.
final class ServiceEntry {
    let registration: ServiceRegistration
    var provider: Provider
    var slot: InstanceSlot = .empty {
        didSet {
            generation &+= 1
            typedInstance = nil
        }
    }
    /// Counts changes of `slot`, so that a typed box is stored only for the instance it was made from.
    var generation = 0
    /// The shared instance boxed as the type it was last asked for (a `TypedInstance<Service>`): the fast
    /// path reads it with a class cast instead of an existential cast.
    var typedInstance: AnyObject?

    init(_ registration: ServiceRegistration, _ provider: Provider) {
        self.registration = registration
        self.provider = provider
    }
}

/// A shared instance as a value of the service type it was asked for.
final class TypedInstance<Service> {
    let value: Service
    init(_ value: Service) { self.value = value }
}

/// Everything a hive knows, behind one lock.
struct RegistryState {
    var services: [ServiceKey: ServiceEntry] = [:]
    var serviceOrder: [ServiceKey] = []
    var typeIndex: [TypeKey: ServiceEntry] = [:]
    var modules: [String: ModuleDeclaration] = [:]
    var moduleOrder: [String] = []
    var routes: [RouteDeclaration] = []
    var diagnostics: [Diagnostic] = []

    /// Adds a registration unless its key is taken; returns the registration that holds the key.
    mutating func add(_ registration: ServiceRegistration, _ provider: Provider) -> ServiceRegistration? {
        let key = ServiceKey(service: registration.service, name: registration.name)
        var existing: ServiceRegistration?
        Self.insert(ServiceEntry(registration, provider), into: &services[key], existing: &existing)
        if existing == nil { serviceOrder.append(key) }
        return existing
    }

    /// Fills an empty dictionary slot (one hash lookup through the subscript's modify accessor).
    private static func insert(
        _ entry: ServiceEntry, into slot: inout ServiceEntry?, existing: inout ServiceRegistration?
    ) {
        if let taken = slot { existing = taken.registration } else { slot = entry }
    }

    /// Makes room for `count` more services.
    mutating func reserve(_ count: Int) {
        guard count > 1 else { return }
        services.reserveCapacity(services.count + count)
        serviceOrder.reserveCapacity(serviceOrder.count + count)
    }

    /// Withdraws every registration whose source satisfies `predicate`; returns how many.
    mutating func withdraw(where predicate: (RegistrationSource) -> Bool) -> Int {
        let before = services.count + modules.count + routes.count
        services = services.filter { !predicate($0.value.registration.source) }
        serviceOrder.removeAll { services[$0] == nil }
        modules = modules.filter { !predicate($0.value.source) }
        moduleOrder.removeAll { modules[$0] == nil }
        routes.removeAll { predicate($0.source) }
        typeIndex.removeAll()
        return before - (services.count + modules.count + routes.count)
    }
}
