extension Hive {
    /// Creates, or returns the shared instance of, the implementation of the service that `key` stands for: what
    /// ``createService(_:name:shouldCache:)-(Service.Type,_,_)`` does for the service's type, without naming that type
    /// at run time.
    ///
    /// Implementations annotated with `@BeeHiveService` are registered under the key when their protocol declares
    /// one (`@BeeHiveServiceKey`); any other registration of the service (by name, by type, from a file) is found by
    /// the key's ``ServiceKey/serviceName``.
    ///
    /// ```swift
    /// let clock = try Hive.shared.createService(ClockKey.self)          // any Clock
    /// let fixed = try Hive.shared.createService(ClockKey.self, name: "fixed")
    /// ```
    /// - Parameters:
    ///   - key: The service's key.
    ///   - name: The registration's name, for services registered under several names.
    ///   - shouldCache: Whether to use and fill the shared-instance cache (BeeHive's `shouldCache`).
    /// - Returns: An instance of the key's service.
    /// - Throws: ``HiveError`` as ``createService(_:name:shouldCache:)-(Service.Type,_,_)`` does.
    @inlinable
    public func createService<Key: ServiceKey>(
        _ key: Key.Type, name: String? = nil, shouldCache: Bool = true
    ) throws(HiveError) -> Key.Service {
        // As by type: specialized in the caller, where copying a `Key.Service` out of its box needs no metadata.
        if shouldCache, let box = sharedInstance(ObjectIdentifier(key), name: name) {
            return box.value(as: Key.Service.self)
        }
        return try makeService(key: key, name: name, shouldCache: shouldCache).value(as: Key.Service.self)
    }

    /// ``createService(_:name:shouldCache:)-(Key.Type,_,_)`` without blocking a thread: the way to ask for a service by
    /// its key from async code.
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - name: The registration's name, for a service registered several times.
    ///   - shouldCache: Whether to use and fill the shared-instance cache.
    /// - Returns: An instance of the key's service.
    /// - Throws: ``HiveError`` as ``createService(_:name:shouldCache:)-(Service.Type,_,_)`` does.
    @inlinable
    public func service<Key: ServiceKey>(
        _ key: Key.Type, name: String? = nil, shouldCache: Bool = true
    ) async throws(HiveError) -> Key.Service {
        if shouldCache, let box = sharedInstance(ObjectIdentifier(key), name: name) {
            return box.value(as: Key.Service.self)
        }
        return try await makeServiceWaiting(key: key, name: name, shouldCache: shouldCache).value(as: Key.Service.self)
    }

    /// ``createService(_:name:shouldCache:)-(Key.Type,_,_)`` past its cached path, boxed: not generic, so that nothing
    /// here names the service's type (an instance that its provider did not box under the key is converted through the
    /// key's `Service`, which does).
    @usableFromInline
    func makeService(key: any ServiceKey.Type, name: String?, shouldCache: Bool) throws(HiveError) -> TypedInstance {
        if shouldCache, name == nil, let made = typedFirstUse(ObjectIdentifier(key)) { return made }
        let lookup = TypedLookup(key, name: name, serviceName: key.serviceName, in: self)
        if shouldCache, let cached = lookup.cached { return cached }
        let (made, entry, generation) = try instance(for: lookup.key, typeKey: lookup.typeKey, shouldCache: shouldCache)
        return try lookup.box(made, entry, generation, in: self) { box($0, $1, asServiceOf: key) }
    }

    /// ``makeService(key:name:shouldCache:)``, waiting for an instance another thread is making by suspending.
    @usableFromInline
    func makeServiceWaiting(
        key: any ServiceKey.Type, name: String?, shouldCache: Bool
    ) async throws(HiveError) -> TypedInstance {
        if shouldCache, name == nil, let made = typedFirstUse(ObjectIdentifier(key)) { return made }
        let lookup = TypedLookup(key, name: name, serviceName: key.serviceName, in: self)
        if shouldCache, let cached = lookup.cached { return cached }
        while true {
            switch try attempt(for: lookup.key, typeKey: lookup.typeKey, shouldCache: shouldCache) {
            case .done(let made, let entry, let generation):
                return try lookup.box(made, entry, generation, in: self) { box($0, $1, asServiceOf: key) }
            case .wait(let ticket): await ticket.wait()
            case .retry: continue
            }
        }
    }

    /// `instance` boxed as the service of `key`: its provider's box `boxed` when that holds the key's `Service` (a
    /// registration by that type), else the instance boxed anew if it conforms.
    private func box(_ instance: Any, _ boxed: TypedInstance?, asServiceOf key: any ServiceKey.Type) -> TypedInstance? {
        func box<Key: ServiceKey>(_: Key.Type) -> TypedInstance? {
            if let boxed, boxed.holds(Key.serviceIdentifier) { return boxed }
            return Conformances.box(instance, as: Key.Service.self, path: bindingPath)
        }
        return _openExistential(key, do: box)
    }
}

extension Hive {
    /// Forgets the shared instance of the service that `key` stands for; the registration stays.
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - name: The registration's name.
    public func removeServiceInstance<Key: ServiceKey>(_ key: Key.Type, name: String? = nil) {
        removeServiceInstance(named: key.serviceName, name: name)
    }
}

// The questions by type, asked by key: each takes the key's name of the service, or its `Service`, where the generic
// form would take the key itself for the service.
extension Hive {
    /// Whether an implementation is registered for the service `key` stands for (and `name`).
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - name: The registration's name.
    /// - Returns: Whether a registration serves it.
    public func hasService<Key: ServiceKey>(_ key: Key.Type, name: String? = nil) -> Bool {
        registration(for: key.serviceName, name: name) != nil
    }

    /// The shared instance of the service `key` stands for, if one has been made, without making one: what
    /// ``existingService(_:name:)-(Service.Type,_)`` gives for the key's `Service`.
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - name: The registration's name.
    /// - Returns: The shared instance, or `nil` when none is kept.
    public func existingService<Key: ServiceKey>(_ key: Key.Type, name: String? = nil) -> Key.Service? {
        existingService(Key.Service.self, name: name)
    }

    /// Every implementation of the service `key` stands for whose properties satisfy `predicate`: what
    /// ``services(_:where:)-(Service.Type,_)`` gives for the key's `Service`.
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - predicate: Whether a registration's properties qualify; called without any lock held.
    /// - Returns: The instances, one per qualifying registration, highest rank first.
    /// - Throws: ``HiveError`` as ``services(_:where:)-(Service.Type,_)`` does.
    public func services<Key: ServiceKey>(
        _ key: Key.Type, where predicate: ([String: String]) -> Bool = { _ in true }
    ) throws(HiveError) -> [Key.Service] {
        try services(Key.Service.self, where: predicate)
    }
}

// Registration in code under a key: the service's name is the key's, and the entry is indexed by the key.
extension Hive {
    /// Registers a factory for the service `key` stands for: what the form by type does for the key's `Service`,
    /// indexed by the key, so that neither registering nor asking by the key names the service's type.
    ///
    /// ```swift
    /// try hive.register(ClockKey.self, scope: .singleton) { _ in FakeClock() }
    /// ```
    /// - Parameters:
    ///   - key: The service's key.
    ///   - name: A name, to register several implementations of one service.
    ///   - scope: Whether every request gets a new instance or one shared instance.
    ///   - rank: Its rank among the registrations of the service and `name`; higher serves first.
    ///   - properties: What this implementation is, for ``services(_:where:)-(Service.Type,_)``.
    ///   - fileID: The file that registers; leave the default.
    ///   - line: The line that registers; leave the default.
    ///   - factory: Makes an instance. Called without any lock held.
    /// - Returns: The registration.
    /// - Throws: ``HiveError/Code-swift.struct/duplicateRegistration`` in strict mode when taken at the same rank.
    @inlinable
    @discardableResult
    public func register<Key: ServiceKey>(
        _ key: Key.Type, name: String? = nil, scope: ServiceScope = .transient, rank: Int = 0,
        properties: [String: String] = [:], fileID: String = #fileID, line: Int = #line,
        factory: @escaping @Sendable (Hive) throws -> Key.Service
    ) throws(HiveError) -> ServiceRegistration {
        // Specialized in the caller: the instance is boxed as the key's `Service` without that type's metadata.
        try register(
            key: key, name: name, scope: scope, rank: rank, properties: properties, fileID: fileID, line: line
        ) { hive in
            let instance = try factory(hive)
            return (instance, TypedInstance(instance, key: Key.self))
        }
    }

    /// ``register(_:name:scope:rank:properties:fileID:line:factory:)-(Key.Type,_,_,_,_,_,_,_)`` past its caller:
    /// `make` gives the instance and its box under the key.
    @usableFromInline
    func register(
        key: any ServiceKey.Type, name: String?, scope: ServiceScope, rank: Int, properties: [String: String],
        fileID: String, line: Int, make: @escaping @Sendable (Hive) throws -> (Any, TypedInstance)
    ) throws(HiveError) -> ServiceRegistration {
        try register(
            ServiceRegistration(
                service: key.serviceName, name: name, implementation: "factory",
                source: .code(fileID: fileID, line: line), rank: rank, properties: properties),
            .factory(
                scope,
                { hive in
                    let (instance, boxed) = try make(hive)
                    return Made(instance: instance, boxed: TypedBox(type: ObjectIdentifier(key), object: boxed))
                }), type: key)
    }

    /// Registers `impl` as the implementation of the service `key` stands for: what
    /// ``register(service:impl:name:rank:properties:fileID:line:)-(Service.Type,Impl.Type,_,_,_,_,_)`` does for the
    /// key's `Service`, under the key's name of it and indexed by the key.
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - impl: The implementation type; checked here against the key's `Service` when that is one protocol.
    ///   - name: A name, to register several implementations of one service.
    ///   - rank: Its rank among the registrations of the service and `name`; higher serves first.
    ///   - properties: What this implementation is, for ``services(_:where:)-(Service.Type,_)``.
    ///   - fileID: The file that registers; leave the default.
    ///   - line: The line that registers; leave the default.
    /// - Returns: The registration.
    /// - Throws: ``HiveError/Code-swift.struct/doesNotConform`` when `impl` does not conform to the key's service;
    ///   ``HiveError/Code-swift.struct/duplicateRegistration`` in strict mode when taken at the same rank.
    @discardableResult
    public func register<Key: ServiceKey, Impl: ServiceImplementation>(
        service key: Key.Type, impl: Impl.Type, name: String? = nil, rank: Int = 0,
        properties: [String: String] = [:], fileID: String = #fileID, line: Int = #line
    ) throws(HiveError) -> ServiceRegistration {
        let registration = ServiceRegistration(
            service: key.serviceName, name: name, implementation: TypeLookup.name(of: impl),
            source: .code(fileID: fileID, line: line), rank: rank, properties: properties)
        if let refused = conformanceRefusal(Key.Service.self, impl: impl, registration) {
            record([Diagnostic(.error, refused)])
            throw refused
        }
        return try register(registration, .implementation(impl, boxes: .none), type: key)
    }
}
