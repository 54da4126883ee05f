extension Hive {
    /// The shared instance of `service` if one has been made, without making one: BeeHive's
    /// `[[BHContext shareInstance] getServiceInstanceFromServiceName:]`.
    ///
    /// Only singletons have a shared instance (``ServiceImplementation/isSingleton``, or a factory registered with
    /// ``ServiceScope/singleton``), once ``createService(_:name:shouldCache:)-(Service.Type,_,_)`` made it with
    /// `shouldCache: true` and until ``removeServiceInstance(_:name:)-(Service.Type,_)`` dropped it. Nothing runs: no
    /// look-up of types, no `init`, no factory.
    ///
    /// ```swift
    /// hive.existingService(Clock.self)            // nil: nobody asked for the clock yet
    /// _ = try hive.createService(Clock.self)      // a singleton: made and kept
    /// hive.existingService(Clock.self)            // the same instance
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol.
    ///   - name: The registration's name, for services registered under several names.
    /// - Returns: The shared instance, or `nil` when none is kept (none made yet, a transient implementation, no
    ///   registration, or a singleton being made right now on another thread).
    public func existingService<Service>(_ service: Service.Type, name: String? = nil) -> Service? {
        guard let instance = existingService(named: TypeLookup.name(of: service), name: name) else { return nil }
        return Conformances.box(instance, as: service, path: bindingPath)?.value(as: Service.self)
    }

    /// The shared instance of the service named `service` if one has been made, without making one.
    ///
    /// ```swift
    /// if let clock = hive.existingService(named: "App.Clock") as? Clock { print(clock.now) }
    /// ```
    ///
    /// - Parameters:
    ///   - service: The service's module-qualified name, e.g. `App.UserTrackService`.
    ///   - name: The registration's name.
    /// - Returns: The shared instance, or `nil`; see ``existingService(_:name:)-(Service.Type,_)``.
    public func existingService(named service: String, name: String? = nil) -> Any? {
        state.withLock { state in
            guard let entry = state.entry(for: RegistrationKey(service: service, name: name)),
                case .ready(let instance) = entry.slot
            else { return nil }
            return instance
        }
    }
}
