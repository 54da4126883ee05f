internal import _BeeHiveDiscovery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Hive {
    /// Creates, or returns the shared instance of, the implementation of `service` (BeeHive's `createService:`).
    ///
    /// A singleton implementation (``ServiceImplementation/isSingleton``, or a factory registered with
    /// ``ServiceScope/singleton``) gives one shared instance, created on the first request; other
    /// implementations give a new instance per call. The implementation's type is looked up by name
    /// on the first request and kept.
    ///
    /// ```swift
    /// let tracker = try Hive.shared.createService(UserTrackService.self)
    /// let fast = try Hive.shared.createService(Cache.self, name: "memory")
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol.
    ///   - name: The registration's name, for services registered under several names.
    ///   - shouldCache: Whether to use and fill the shared-instance cache (BeeHive's `shouldCache`).
    ///     With `false`, even a singleton implementation gives an instance that is not kept.
    /// - Returns: An instance that conforms to `service`.
    /// - Throws: ``HiveError`` with code `serviceNotFound`, `unknownType`, `notAnImplementation`,
    ///   `doesNotConform`, `cyclicDependency` or `creationFailed`, naming where the registration came from.
    @inlinable
    public func createService<Service>(
        _ service: Service.Type, name: String? = nil, shouldCache: Bool = true
    )
        throws(HiveError) -> Service
    {
        // Inlined and specialized in the caller: a shared instance asked for by this type before is one lock, one
        // dictionary probe and no cast (the box under this type's key holds a `Service`, see `SharedInstance`).
        if shouldCache, let box = sharedInstance(ObjectIdentifier(service), name: name) {
            return box.value(as: Service.self)
        }
        return try makeService(service, name: name, shouldCache: shouldCache)
    }

    /// The shared instance already made for `type` (and `name`), boxed as that type; `nil` when there is none yet,
    /// or its slot changed since (a removed instance, a withdrawn registration): the box the shared-instance table
    /// remembers, else the one the entry serving `type` unnamed keeps (what a typed first use leaves, with no table to
    /// fill). Read from the state's tables in place: a method of the state would copy it.
    @usableFromInline
    func sharedInstance(_ type: ObjectIdentifier, name: String?) -> TypedInstance? {
        state.withLock { state in
            if let box = state.sharedInstances.box(for: type, name: name) { return box }
            return name == nil ? state.typeIndex.keptBox(type) : nil
        }
    }

    /// ``createService(_:name:shouldCache:)-(Service.Type,_,_)`` past its cached path: finds the registration, makes or
    /// waits for the instance, and remembers a shared one for the cached path.
    @usableFromInline
    func makeService<Service>(
        _ service: Service.Type, name: String?, shouldCache: Bool
    ) throws(HiveError) -> Service {
        if shouldCache, name == nil, let made = typedFirstUse(ObjectIdentifier(service)) {
            return made.value(as: Service.self)
        }
        let lookup = TypedLookup(service, name: name, in: self)
        if shouldCache, let cached = lookup.cached {
            return cached.value(as: Service.self)
        }
        let (made, entry, generation) = try self.instance(
            for: lookup.key, typeKey: lookup.typeKey, shouldCache: shouldCache)
        return try lookup.typed(made, as: service, entry, generation, in: self)
    }

    /// Creates, or returns the shared instance of, the implementation of `service`, without blocking a thread:
    /// the way to ask for a service from async code.
    ///
    /// ``createService(_:name:shouldCache:)-(Service.Type,_,_)`` waits for a singleton that another thread is creating
    /// by blocking; in a task that would hold one of the concurrency pool's few threads. This waits by suspending.
    ///
    /// ```swift
    /// func modInit(_ context: ModuleContext) async throws {
    ///     let accounts = try await context.hive.service(AccountService.self)
    /// }
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol: `UserTrackService.self`.
    ///   - name: The registration's name, for a service registered several times.
    ///   - shouldCache: Whether to use and fill the shared-instance cache (BeeHive's `shouldCache`).
    /// - Returns: An instance that conforms to `service`.
    /// - Throws: ``HiveError`` as for ``createService(_:name:shouldCache:)-(Service.Type,_,_)``.
    public func service<Service>(
        _ service: Service.Type, name: String? = nil, shouldCache: Bool = true
    ) async throws(HiveError) -> Service {
        if shouldCache, let box = sharedInstance(ObjectIdentifier(service), name: name) {
            return box.value(as: Service.self)
        }
        if shouldCache, name == nil, let made = typedFirstUse(ObjectIdentifier(service)) {
            return made.value(as: Service.self)
        }
        let lookup = TypedLookup(service, name: name, in: self)
        if shouldCache, let cached = lookup.cached {
            return cached.value(as: Service.self)
        }
        while true {
            switch try attempt(for: lookup.key, typeKey: lookup.typeKey, shouldCache: shouldCache) {
            case .done(let made, let entry, let generation):
                return try lookup.typed(made, as: service, entry, generation, in: self)
            case .wait(let ticket): await ticket.wait()
            case .retry: continue
            }
        }
    }

    /// Creates, or returns the shared instance of, the implementation of the service named `service`.
    ///
    /// - Parameters:
    ///   - service: The service's module-qualified name, e.g. `App.UserTrackService`.
    ///   - name: The registration's name.
    ///   - shouldCache: Whether to use and fill the shared-instance cache.
    /// - Returns: The instance.
    /// - Throws: ``HiveError`` as for ``createService(_:name:shouldCache:)-(Service.Type,_,_)``.
    public func createService(
        named service: String, name: String? = nil, shouldCache: Bool = true
    )
        throws(HiveError) -> Any
    {
        try instance(for: RegistrationKey(service: service, name: name), typeKey: nil, shouldCache: shouldCache).made
            .instance
    }

    /// Whether an implementation is registered for `service` (and `name`).
    public func hasService<Service>(_ service: Service.Type, name: String? = nil) -> Bool {
        registration(for: TypeLookup.name(of: service), name: name) != nil
    }

    /// The registration that serves the service named `service` (and `name`), if any.
    public func registration(for service: String, name: String? = nil) -> ServiceRegistration? {
        state.withLock { $0.entry(for: RegistrationKey(service: service, name: name))?.registration }
    }

    /// Forgets the shared instance of `service` (BeeHive's `removeServiceWithServiceName:`); the next
    /// request creates a new one. The registration stays.
    public func removeServiceInstance<Service>(_ service: Service.Type, name: String? = nil) {
        removeServiceInstance(named: TypeLookup.name(of: service), name: name)
    }

    /// Forgets the shared instance of the service named `service`; the registration stays.
    public func removeServiceInstance(named service: String, name: String? = nil) {
        let removed: Any? = state.withLock { state in
            guard let entry = state.entry(for: RegistrationKey(service: service, name: name)),
                case .ready(let instance) = entry.slot
            else { return nil }
            entry.slot = .empty
            return instance
        }
        _ = removed  // released here, outside the lock: a deinit is user code
    }
}
