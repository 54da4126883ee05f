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

    /// A service: its type, or its ``ServiceKey`` (then `key` too), and its maker.
    typealias Boxed = (service: any Any.Type, key: (any ServiceKey.Type)?, make: ServiceMaker)

    private let first: Boxed?
    private let others: [Boxed]

    private init(first: Boxed?, others: [Boxed]) {
        self.first = first
        self.others = others
    }

    /// The names of the annotated services: the runtime's name of each type, the key's name for a key.
    var names: [String] { ((first.map { [$0] } ?? []) + others).map(Self.name(of:)) }

    /// The name of the service `boxed` makes boxes of: the runtime's name of its type, the key's name for a key.
    static func name(of boxed: Boxed) -> String { boxed.key?.serviceName ?? TypeLookup.name(of: boxed.service) }

    /// These services and `service` (the key `key`, when there is one), made by `make`.
    func adding(_ service: any Any.Type, key: (any ServiceKey.Type)?, _ make: @escaping ServiceMaker) -> ServiceBoxes {
        guard let first else { return ServiceBoxes(first: (service, key, make), others: []) }
        return ServiceBoxes(first: first, others: others + [(service, key, make)])
    }

    /// How to make an instance boxed as `service`, if the implementation was annotated with it: with that type, with
    /// that key, or with a key whose `Service` is that type (asked by type, a key's box serves).
    func maker(for service: ObjectIdentifier) -> ServiceMaker? {
        if let first, Self.boxes(first, as: service) { return first.make }
        return others.first { Self.boxes($0, as: service) }?.make
    }

    /// Whether `boxed` makes a box of `service`: asked for its key or type, or for its key's `Service` (which this
    /// asks the key for, naming that type once).
    static func boxes(_ boxed: Boxed, as service: ObjectIdentifier) -> Bool {
        ObjectIdentifier(boxed.service) == service || boxed.key?.serviceIdentifier == service
    }

    /// How to make an instance, whatever it is then used as; nil when no typed record says how.
    var anyMaker: ServiceMaker? { first?.make }
}
