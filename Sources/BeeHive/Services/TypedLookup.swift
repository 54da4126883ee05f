/// A request for a service by type: its keys, and the shared instance already boxed as its type, if any.
///
/// Not generic: the path past the cached one runs unspecialized (across the module boundary), where each generic
/// value (a `Service?`, a tuple of `Service`, a generic struct) makes the runtime instantiate metadata for every
/// service type at its first use. The box is compared by type identifier and downcast, not cast.
struct TypedLookup {
    let typeKey: TypeKey
    let key: RegistrationKey
    /// The shared instance boxed as the service, if there is one.
    let cached: TypedInstance?

    /// - Parameters:
    ///   - service: The type asked for: the service's, or its ``ServiceKey``.
    ///   - name: The registration's name, if any.
    ///   - serviceName: For a key, the service's name it gives: what the registration is looked for by when no
    ///     registration is indexed by the key.
    ///   - hive: The hive asked.
    init(_ service: any Any.Type, name: String?, serviceName: String? = nil, in hive: Hive) {
        TypedRecords.bindPending()  // accessors are foreign code: called before the lock
        let typeKey = TypeKey(type: ObjectIdentifier(service), name: name)
        var indexed: ServiceEntry?
        var box: TypedInstance?
        hive.state.withLock { state in
            guard let entry = state.typeIndex[typeKey] else { return }
            indexed = entry
            guard let typed = entry.typedInstance, typed.type == typeKey.type else { return }
            // Boxed as this very type: the cached path returns it from now on, from the entry (an unnamed request)
            // or from the table.
            if typeKey.name != nil {
                state.sharedInstances.set(
                    SharedInstance(entry: entry, generation: entry.generation, box: typed.object), for: typeKey,
                    expected: state.services.count)
            }
            box = typed.object
        }
        self.typeKey = typeKey
        cached = box
        key =
            indexed.map(\.registration.key)
            ?? (serviceName == nil && name == nil ? Self.registeredKey(of: service, indexedAs: typeKey, in: hive) : nil)
            ?? RegistrationKey(
                service: serviceName ?? Self.serviceName(of: service, typeKey.type, name: name, in: hive), name: name)
    }

    /// The registry's own key of the unnamed registration of `service`, found by the bytes of its name
    /// (``TypeLookup/withKnownName(of:_:)``): no string is made of the name (~0.6 K instructions with its release),
    /// and the next look-ups by the key compare the registry's strings with themselves. The registration is indexed
    /// under `typeKey` at once, as the first attempt would index what it finds by the key
    /// (`entry(serving:typeKey:fixed:)`), so that the attempt finds it by the type, with no second look-up by the key.
    private static func registeredKey(
        of service: any Any.Type, indexedAs typeKey: TypeKey, in hive: Hive
    ) -> RegistrationKey? {
        TypeLookup.withKnownName(of: service) { bytes in
            hive.state.withLock { state in
                guard let found = state.services.unnamedEntry(serviceUTF8: bytes) else { return nil }
                state.typeIndex.set(found.value, for: typeKey, expected: state.services.count)
                return found.key
            }
        }
    }

    /// The name a request by type looks for when no registration is indexed by the type: the type's own, when a
    /// registration has it; else the name a typed record annotated with the type gives it (an annotation through a
    /// typealias, registered in another hive). The type's name is read from its descriptor, where the typed records'
    /// table would be indexed whole on its first question.
    private static func serviceName(
        of service: any Any.Type, _ type: ObjectIdentifier, name: String?, in hive: Hive
    ) -> String {
        let own = TypeLookup.name(of: service)
        // Bound by `init` already. Without typed records (C records, files, code), the type's own name is the only one.
        guard TypedRecords.hasRecords.isSet,
            !hive.state.withLock({ $0.entry(for: RegistrationKey(service: own, name: name)) != nil })
        else { return own }
        return TypedRecords.serviceName(of: type) ?? own
    }

    /// The instance as `Service`; a shared one is kept boxed as `Service` for the cached path.
    ///
    /// An instance the provider boxed as `Service` (a typed factory, a typed record) is taken as it is; any other is
    /// assembled from the witness table of its module's conformance record (``Conformances``), and only when that
    /// cannot be done, cast (the runtime then scans every conformance record of the process).
    func typed<Service>(
        _ made: Made, as service: Service.Type, _ entry: ServiceEntry, _ cachedGeneration: Int?, in hive: Hive
    ) throws(HiveError)
        -> Service
    {
        try box(made, entry, cachedGeneration, in: hive) { instance, _ in
            Conformances.box(instance, as: Service.self, path: hive.bindingPath)
        }
        .value(as: Service.self)
    }

    /// The instance boxed as what was asked for (``typeKey``): the provider's box when it holds that type, else what
    /// `boxing` makes of the instance and that box. A shared one is kept for the cached path.
    func box(
        _ made: Made, _ entry: ServiceEntry, _ cachedGeneration: Int?, in hive: Hive,
        boxing: (_ instance: Any, _ boxed: TypedInstance?) -> TypedInstance?
    ) throws(HiveError) -> TypedInstance {
        let box: TypedBox
        if let boxed = made.boxed, boxed.type == typeKey.type || boxed.object.holds(typeKey.type) {
            box = TypedBox(type: typeKey.type, object: boxed.object)
        } else if let typed = boxing(made.instance, made.boxed?.object) {
            box = TypedBox(type: typeKey.type, object: typed)
        } else {
            throw HiveError.doesNotConform(entry.registration, service: key.service)
        }
        if let cachedGeneration {
            hive.state.withLock { state in
                // A registration withdrawn while its instance was being made (a plugin upgraded meanwhile) keeps
                // nothing: the cache serves the registration that replaced it. One outranked meanwhile keeps its box,
                // but the cached path serves the type's registration now.
                guard entry.generation == cachedGeneration, !entry.isWithdrawn else { return }
                let previous = entry.typedInstance
                entry.typedInstance = box
                guard state.typeIndex[typeKey] === entry else { return }
                // An unnamed request finds the entry's box through the type index (`Hive.sharedInstance`). The table
                // keeps a named request's box, and both boxes of an entry asked for as a second type, whose box
                // replaced the first one's in the entry.
                let replaced = previous.flatMap { $0.type == typeKey.type ? nil : $0 }
                guard typeKey.name != nil || replaced != nil else { return }
                state.sharedInstances.set(
                    SharedInstance(entry: entry, generation: cachedGeneration, box: box.object), for: typeKey,
                    expected: state.services.count)
                if let replaced, state.typeIndex.unnamed(replaced.type) === entry {
                    state.sharedInstances.set(
                        SharedInstance(entry: entry, generation: cachedGeneration, box: replaced.object),
                        for: TypeKey(type: replaced.type, name: nil), expected: state.services.count)
                }
            }
        }
        return box.object
    }
}
