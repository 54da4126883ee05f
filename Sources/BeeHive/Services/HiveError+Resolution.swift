extension HiveError {
    /// The implementation of `registration` does not conform to the service named `service`; says so, and when the
    /// protocol is defined by two loaded images (a plugin packaged with its own copy of the host's API), why.
    static func doesNotConform(_ registration: ServiceRegistration, service: String) -> HiveError {
        let images = TypeLookup.imagesDefiningProtocol(named: service)
        let twice =
            images.isEmpty
            ? ""
            : ". \(service) is defined by \(images.count) loaded images (\(images.joined(separator: ", "))): each has "
                + "its own copy of the protocol, and a type conforms to one copy only. Link the module that declares "
                + "it once, as a shared library that the host and its plugins both load (see Docs/Linking.md, \"A module "
                + "linked twice\")"
        return HiveError(
            .doesNotConform,
            "expected \(registration.implementation) to conform to \(service); it does not\(twice)",
            source: registration.source)
    }

    /// The initializer of `registration`'s implementation asked for its own service on the same thread.
    static func cyclicDependency(_ registration: ServiceRegistration) -> HiveError {
        HiveError(
            .cyclicDependency,
            "expected the initializer of \(registration.implementation) not to ask for \(registration.displayName) "
                + "while it is being created; it did, on the same thread",
            source: registration.source)
    }

    /// No registration serves `key`; says what `miss` found instead.
    static func serviceNotFound(_ key: RegistrationKey, _ miss: RegistryState.Miss) -> HiveError {
        let list = miss.available.isEmpty ? "none" : miss.available.joined(separator: ", ")
        let hint = miss.unqualified.map { registration in
            " (\(registration.displayName) is registered without its module by \(registration.source): "
                + "name services module-qualified, as \(key.service))"
        }
        return HiveError(
            .serviceNotFound,
            "expected a registration for \(key.displayName); found none\(hint ?? "").\(miss.hints) Registered "
                + "services: " + list,
            source: miss.unqualified?.source)
    }
}
