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
        let lookup = TypedLookup(key, name: name, serviceName: key.serviceName, in: self)
        if shouldCache, let cached = lookup.cached { return cached }
        let (made, entry, generation) = try instance(for: lookup.key, typeKey: lookup.typeKey, shouldCache: shouldCache)
        return try lookup.box(made, entry, generation, in: self) { box($0, asServiceOf: key) }
    }

    /// ``makeService(key:name:shouldCache:)``, waiting for an instance another thread is making by suspending.
    @usableFromInline
    func makeServiceWaiting(
        key: any ServiceKey.Type, name: String?, shouldCache: Bool
    ) async throws(HiveError) -> TypedInstance {
        let lookup = TypedLookup(key, name: name, serviceName: key.serviceName, in: self)
        if shouldCache, let cached = lookup.cached { return cached }
        while true {
            switch try attempt(for: lookup.key, typeKey: lookup.typeKey, shouldCache: shouldCache) {
            case .done(let made, let entry, let generation):
                return try lookup.box(made, entry, generation, in: self) { box($0, asServiceOf: key) }
            case .wait(let ticket): await ticket.wait()
            case .retry: continue
            }
        }
    }

    /// `made` boxed as the service of `key`: its provider's box when that holds the key's `Service` (a registration
    /// by that type), else the instance boxed anew if it conforms.
    private func box(_ made: Made, asServiceOf key: any ServiceKey.Type) -> TypedInstance? {
        func box<Key: ServiceKey>(_: Key.Type) -> TypedInstance? {
            if let boxed = made.boxed?.object, boxed.holds(ObjectIdentifier(Key.Service.self)) { return boxed }
            return Conformances.box(made.instance, as: Key.Service.self, path: bindingPath)
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
