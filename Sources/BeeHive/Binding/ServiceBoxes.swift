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

    private let first: (service: any Any.Type, make: ServiceMaker)?
    private let others: [(service: any Any.Type, make: ServiceMaker)]

    private init(
        first: (service: any Any.Type, make: ServiceMaker)?, others: [(service: any Any.Type, make: ServiceMaker)]
    ) {
        self.first = first
        self.others = others
    }

    /// The annotated services, as types.
    var types: [any Any.Type] { (first.map { [$0.service] } ?? []) + others.map(\.service) }

    /// These services and `service`, made by `make`.
    func adding(_ service: any Any.Type, _ make: @escaping ServiceMaker) -> ServiceBoxes {
        guard let first else { return ServiceBoxes(first: (service, make), others: []) }
        return ServiceBoxes(first: first, others: others + [(service, make)])
    }

    /// How to make an instance boxed as `service`, if the implementation was annotated with it.
    func maker(for service: ObjectIdentifier) -> ServiceMaker? {
        if let first, ObjectIdentifier(first.service) == service { return first.make }
        return others.first { ObjectIdentifier($0.service) == service }?.make
    }

    /// How to make an instance, whatever it is then used as; nil when no typed record says how.
    var anyMaker: ServiceMaker? { first?.make }
}
