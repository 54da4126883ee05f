internal import _BeeHiveScanner

extension Hive {
    /// The error that refuses a registration in code whose implementation type does not conform to its service, when
    /// both types are known there (BeeHive's `registerService:implClass:` checks `conformsToProtocol:` and refuses);
    /// `nil` when it conforms or when this cannot be decided without an instance.
    ///
    /// Decided by the Swift runtime from the two types alone (`swift_conformsToProtocol`), for a service that is one
    /// protocol (the usual `any P`); a composition, a protocol with a superclass constraint or a service that is not
    /// a protocol is left to ``createService(_:name:shouldCache:)``, which checks the instance. One runtime query, no
    /// scan of the images' types; no lock is held.
    ///
    /// - Parameters:
    ///   - service: The service type.
    ///   - impl: The implementation type.
    ///   - registration: The registration, for the message and its source.
    /// - Returns: A `doesNotConform` error, or `nil`.
    func conformanceRefusal<Service>(
        _ service: Service.Type, impl: any Any.Type, _ registration: ServiceRegistration
    ) -> HiveError? {
        guard let (descriptor, _) = Conformances.singleProtocol(of: service),
            bh_swift_conforms(Conformances.metadata(of: impl), descriptor) == 0
        else { return nil }
        let base = HiveError.doesNotConform(registration, service: registration.service)
        return HiveError(
            .doesNotConform,
            base.message + "; the registration is refused and the service stays free for a valid one",
            source: registration.source)
    }
}
