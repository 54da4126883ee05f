/// Makes an instance of an implementation (its shared one when asked) and boxes it as the one service its typed record
/// was written for. Made where the compiler knows both types, so it needs no cast and no conformance look-up.
@usableFromInline
typealias ServiceMaker = @Sendable (_ shared: Bool) -> (instance: Any, boxed: TypedInstance)

/// The services an implementation was annotated with, and for each how to make an instance boxed as that service.
///
/// Immutable and shared: a provider or a declared type holding it is copied with one retain. The first service is
/// held inline: most implementations serve one service, and then no array is made. Sendable because nothing in it
/// changes: types and `@Sendable` closures, all `let`.
final class ServiceBoxes: @unchecked Sendable {
    /// Holds no service: for implementations no typed record describes.
    static let none = ServiceBoxes(first: nil, others: [])

    /// A service: its type or its ``ServiceKey`` (then with the key's name of the service), and its maker.
    typealias Boxed = (service: any Any.Type, keyedName: String?, make: ServiceMaker)

    private let first: Boxed?
    private let others: [Boxed]

    private init(first: Boxed?, others: [Boxed]) {
        self.first = first
        self.others = others
    }

    /// The names of the annotated services: the runtime's name of each type, the key's name for a key.
    var names: [String] {
        ((first.map { [$0] } ?? []) + others).map { $0.keyedName ?? TypeLookup.name(of: $0.service) }
    }

    /// These services and `service` (a key when `keyedName`, the service's name it gives, is not nil), made by `make`.
    func adding(_ service: any Any.Type, keyedName: String?, _ make: @escaping ServiceMaker) -> ServiceBoxes {
        guard let first else { return ServiceBoxes(first: (service, keyedName, make), others: []) }
        return ServiceBoxes(first: first, others: others + [(service, keyedName, make)])
    }

    /// How to make an instance boxed as `service`, if the implementation was annotated with it.
    func maker(for service: ObjectIdentifier) -> ServiceMaker? {
        if let first, ObjectIdentifier(first.service) == service { return first.make }
        return others.first { ObjectIdentifier($0.service) == service }?.make
    }

    /// How to make an instance, whatever it is then used as; nil when no typed record says how.
    var anyMaker: ServiceMaker? { first?.make }
}
