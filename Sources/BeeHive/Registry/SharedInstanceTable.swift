/// The shared instances asked for by type, each boxed as that type, that their entries do not keep: what the cached
/// path of ``Hive/createService(_:name:shouldCache:)-(Service.Type,_,_)`` reads under the hive's lock when the entry
/// indexed by the type has no box of that type (``TypeIndex/keptBox(_:)``). Named requests, and the boxes of an entry
/// asked for as more than one type (its key and its protocol), whose own box holds the last one.
///
/// Unnamed requests are found in an ``AddressTable`` keyed by the type's metadata address: a probe costs a few
/// instructions where a `Dictionary` runs SipHash. Named requests use a dictionary.
struct SharedInstanceTable {
    private var unnamed = AddressTable<SharedInstance>()
    private var named: [TypeKey: SharedInstance] = [:]

    /// The box for `type` (and `name`), if its instance is still the entry's.
    func box(for type: ObjectIdentifier, name: String?) -> TypedInstance? {
        if let name {
            guard let shared = named[TypeKey(type: type, name: name)] else { return nil }
            return shared.entry.generation == shared.generation ? shared.box : nil
        }
        return unnamed.read(type) { $0.entry.generation == $0.generation ? $0.box : nil }
    }

    /// Remembers `shared` as the box for `key`'s type and name. The first unnamed box sizes the table for `expected`
    /// types, so that it does not grow (copying every box) during the first uses.
    mutating func set(_ shared: SharedInstance, for key: TypeKey, expected: Int) {
        if key.name != nil {
            named[key] = shared
        } else {
            if unnamed.isEmpty { unnamed.reserveCapacity(expected) }
            unnamed[key.type] = shared
        }
    }

    /// Forgets every box (registrations were withdrawn or replaced).
    mutating func removeAll() {
        unnamed.removeAll()
        named = [:]
    }
}

/// The registrations asked for by type: what lets a service's later first requests (after a removed instance, with
/// `shouldCache: false`) and registrations made in code by type skip the type's name.
struct TypeIndex {
    private var unnamed = AddressTable<ServiceEntry>()
    private var named: [TypeKey: ServiceEntry] = [:]

    subscript(key: TypeKey) -> ServiceEntry? {
        key.name == nil ? unnamed[key.type] : named[key]
    }

    /// The entry indexed under `type` with no registration name.
    func unnamed(_ type: ObjectIdentifier) -> ServiceEntry? { unnamed[type] }

    /// The shared instance that the entry indexed under `type` (no registration name) keeps boxed as `type`, if it
    /// serves still; read in place, the entry not retained.
    func keptBox(_ type: ObjectIdentifier) -> TypedInstance? {
        unnamed.read(type) { entry in
            guard !entry.isWithdrawn, let typed = entry.typedInstance, typed.type == type else { return nil }
            return typed.object
        }
    }

    /// Indexes `entry` under `key`. The first unnamed entry sizes the index for `expected` types, so that it does not
    /// grow (copying every entry) during the first uses.
    mutating func set(_ entry: ServiceEntry, for key: TypeKey, expected: Int) {
        if key.name == nil {
            if unnamed.isEmpty { unnamed.reserveCapacity(expected) }
            unnamed[key.type] = entry
        } else {
            named[key] = entry
        }
    }

    mutating func removeAll() {
        unnamed.removeAll()
        named = [:]
    }
}
