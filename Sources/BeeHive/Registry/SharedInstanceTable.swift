/// The shared instances asked for by type, each boxed as that type: what the cached path of
/// ``Hive/createService(_:name:shouldCache:)`` reads under the hive's lock.
///
/// Unnamed requests, the common case, are found in an open-addressing table keyed by the type's metadata address
/// with a multiplicative hash: a probe costs a few instructions where a `Dictionary` runs SipHash. Named requests
/// use a dictionary.
struct SharedInstanceTable {
    /// Metadata addresses, 0 for a free slot; a power of two long, at most half full.
    private var keys: [UInt] = []
    private var values: [SharedInstance?] = []
    private var count = 0
    private var named: [TypeKey: SharedInstance] = [:]

    /// The box for `type` (and `name`), if its instance is still the entry's.
    func box(for type: ObjectIdentifier, name: String?) -> AnyObject? {
        if let name {
            guard let shared = named[TypeKey(type: type, name: name)] else { return nil }
            return shared.entry.generation == shared.generation ? shared.box : nil
        }
        guard let index = slot(of: UInt(bitPattern: type)) else { return nil }
        // Read in place: copying the slot out would retain and release its entry.
        return values.withUnsafeBufferPointer { values in
            guard let shared = values[index], shared.entry.generation == shared.generation else { return nil }
            return shared.box
        }
    }

    /// Remembers `shared` as the box for `key`'s type and name.
    mutating func set(_ shared: SharedInstance, for key: TypeKey) {
        if let name = key.name {
            named[TypeKey(type: key.type, name: name)] = shared
            return
        }
        let address = UInt(bitPattern: key.type)
        if let index = slot(of: address) {
            values[index] = shared
            return
        }
        if (count + 1) * 2 > keys.count { grow() }
        insert(address, shared)
    }

    /// Forgets every box (registrations were withdrawn or replaced).
    mutating func removeAll() {
        keys = []
        values = []
        count = 0
        named = [:]
    }

    /// The slot holding `address`, if any.
    private func slot(of address: UInt) -> Int? {
        guard !keys.isEmpty else { return nil }
        let mask = keys.count - 1
        var index = Self.home(of: address, mask: mask)
        return keys.withUnsafeBufferPointer { keys in
            while true {
                let key = keys[index]
                if key == address { return index }
                if key == 0 { return nil }
                index = (index + 1) & mask
            }
        }
    }

    private mutating func insert(_ address: UInt, _ shared: SharedInstance) {
        let mask = keys.count - 1
        var index = Self.home(of: address, mask: mask)
        while keys[index] != 0 { index = (index + 1) & mask }
        keys[index] = address
        values[index] = shared
        count += 1
    }

    private mutating func grow() {
        let old = zip(keys, values).filter { $0.0 != 0 }
        keys = Array(repeating: 0, count: max(16, keys.count * 2))
        values = Array(repeating: nil, count: keys.count)
        count = 0
        for (address, shared) in old { insert(address, shared!) }
    }

    /// Fibonacci hashing of a metadata address (whose low bits are alignment zeros).
    private static func home(of address: UInt, mask: Int) -> Int {
        Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }
}
