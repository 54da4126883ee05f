/// A type that stands for a service in ``Hive/createService(_:name:shouldCache:)-(Key.Type,_,_)``: the way to ask
/// for a service without naming its protocol as a type at run time.
///
/// Asking by the protocol (`createService(Clock.self)`) makes the runtime build `any Clock`'s metadata from its mangled
/// name the first time the process names it, about 3.6 K instructions per service; a key is an enum of the service's
/// own module, whose metadata is static. `@BeeHiveServiceKey` on the protocol declares its key (`ClockKey`), and the
/// `@BeeHiveService` annotations of its implementations then register them under the key, so that neither the
/// registration nor the first use names the protocol. Asking by the protocol still works.
///
/// ```swift
/// @BeeHiveServiceKey
/// public protocol Clock: Sendable { var now: Int { get } }
///
/// @BeeHiveService(Clock.self)
/// struct SystemClock: Clock { var now: Int { 1000 } }
///
/// let clock = try Hive.shared.createService(ClockKey.self)   // any Clock
/// ```
///
/// Written by hand, a key names the service as its registrations do (``serviceName``); a resolve by the key then finds
/// registrations made any way, by name.
public protocol ServiceKey: SendableMetatype {
    /// The service, an existential: `any Clock`.
    associatedtype Service

    /// The service's module-qualified name, as registrations name it: `App.Clock`.
    static var serviceName: String { get }
}

extension ServiceKey {
    /// `ObjectIdentifier(Service.self)`: what a key's box holds, compared with the type a request asks for. Names the
    /// service's type (the witness table's mangled name, once per key).
    static var serviceIdentifier: ObjectIdentifier { ObjectIdentifier(Service.self) }
}

/// The key of `service`'s registrations in a typed record: `service` itself, unless `@BeeHiveServiceKey` declared an
/// overload of this function for it that gives its ``ServiceKey``. Called by the Swift macros' expansions, not for
/// direct use.
///
/// - Parameter service: The service, as the annotation names it.
/// - Returns: `service`.
@_alwaysEmitIntoClient
public func _beeHiveServiceKey<Service>(_ service: Service.Type) -> Service.Type { service }
