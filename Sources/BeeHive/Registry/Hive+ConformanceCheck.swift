extension Hive {
    /// The error that refuses a registration in code whose implementation type does not conform to its service, when
    /// both types are known there (BeeHive's `registerService:implClass:` checks `conformsToProtocol:` and refuses);
    /// `nil` when it conforms or when this cannot be decided without an instance.
    ///
    /// Decided from the two types alone, for a service that is one protocol (the usual `any P`): first from the
    /// conformance records of the implementation's module (``Conformances``, what `createService` uses too), then,
    /// when they do not declare it (a conformance declared elsewhere, a conditional one), by the Swift runtime
    /// (`swift_conformsToProtocol`). A composition, a protocol with a superclass constraint or a service that is not
    /// a protocol is left to ``createService(_:name:shouldCache:)-(Service.Type,_,_)``, which checks the instance. No
    /// lock is held.
    ///
    /// - Parameters:
    ///   - service: The service type.
    ///   - impl: The implementation type.
    ///   - registration: The registration, for the message and its source.
    /// - Returns: A `doesNotConform` error, or `nil`.
    func conformanceRefusal<Service>(
        _ service: Service.Type, impl: any Any.Type, _ registration: ServiceRegistration
    ) -> HiveError? {
        guard let (descriptor, _) = Conformances.singleProtocol(of: service) else { return nil }
        // The usual case, a conformance declared by the implementation's own module, is a look-up in that module's
        // conformance records (read once per module); only what is not found there asks the runtime, whose first
        // answer for a type scans every conformance record of the process.
        guard !Conformances.conforms(impl, to: descriptor) else { return nil }
        let base = HiveError.doesNotConform(registration, service: registration.service)
        return HiveError(
            .doesNotConform,
            base.message + "; the registration is refused and the service stays free for a valid one",
            source: registration.source)
    }
}
