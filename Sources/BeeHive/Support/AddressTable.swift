/// A table keyed by a type's metadata address (an `ObjectIdentifier` of a type) or another non-zero word, for the
/// paths that run at a service's first use and on every cached resolve.
///
/// Open addressing with a multiplicative hash: a probe costs a few instructions where a `Dictionary` runs SipHash.
/// And it asks the runtime for nothing: a `Dictionary` of a key type of our own makes the runtime check that key's
/// `Hashable` conformance when its storage type is first instantiated, a scan of every conformance record in the
/// process (about 350 K instructions, at the first use of the first service).
struct AddressTable<Value> {
    /// Metadata addresses, 0 for a free slot; a power of two long, at most half full.
    private var keys: [UInt] = []
    private var values = Slots<Value>()
    private var count = 0

    /// The value for `type`, if any.
    subscript(type: ObjectIdentifier) -> Value? {
        get { self[key: UInt(bitPattern: type)] }
        set { self[key: UInt(bitPattern: type)] = newValue }
    }

    /// The value for `address` (not 0), if any.
    subscript(key address: UInt) -> Value? {
        get { slot(of: address).flatMap { values[$0] } }
        set {
            guard let newValue else {
                if let index = slot(of: address) { values[index] = nil }
                return
            }
            if (count + 1) * 2 > keys.count { grow() }
            // One probe: the key's slot, or the first free one, which takes the key.
            let mask = keys.count - 1
            var index = homeSlot(of: address, mask: mask)
            let isNew = keys.withUnsafeMutableBufferPointer { keys in
                while true {
                    let key = keys[index]
                    if key == address { return false }
                    if key == 0 {
                        keys[index] = address
                        return true
                    }
                    index = (index + 1) & mask
                }
            }
            if isNew { count += 1 }
            values[index] = newValue
        }
    }

    /// What `body` reads from the value for `type`, read in place (copying a slot out would retain and release
    /// what it holds); nil when there is no value.
    func read<Result>(_ type: ObjectIdentifier, _ body: (Value) -> Result?) -> Result? {
        guard let index = slot(of: UInt(bitPattern: type)) else { return nil }
        return values.withUnsafeBufferPointer { values in values[index].flatMap(body) }
    }

    /// Whether no value was ever stored (since the last ``removeAll()``).
    var isEmpty: Bool { count == 0 }

    /// Makes room for `count` more values without growing.
    mutating func reserveCapacity(_ count: Int) {
        var capacity = max(16, keys.count)
        while (self.count + count) * 2 > capacity { capacity *= 2 }
        if capacity > keys.count { grow(to: capacity) }
    }

    /// Forgets every value.
    mutating func removeAll() {
        keys = []
        values = Slots()
        count = 0
    }

    /// Forgets the values that `shouldRemove` picks; their keys stay, as when a value is set to nil.
    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        for index in values.indices where values[index].map(shouldRemove) == true { values[index] = nil }
    }

    /// Calls `body` with every value, in no particular order.
    func forEach(_ body: (Value) -> Void) {
        values.withUnsafeBufferPointer { values in
            for value in values { value.map(body) }
        }
    }

    /// The slot holding `address`, if any.
    private func slot(of address: UInt) -> Int? {
        guard !keys.isEmpty else { return nil }
        let mask = keys.count - 1
        var index = homeSlot(of: address, mask: mask)
        return keys.withUnsafeBufferPointer { keys in
            while true {
                let key = keys[index]
                if key == address { return index }
                if key == 0 { return nil }
                index = (index + 1) & mask
            }
        }
    }

    private mutating func insert(_ address: UInt, _ value: Value) {
        let mask = keys.count - 1
        var index = homeSlot(of: address, mask: mask)
        while keys[index] != 0 { index = (index + 1) & mask }
        keys[index] = address
        values[index] = value
        count += 1
    }

    private mutating func grow(to capacity: Int? = nil) {
        let oldKeys = keys
        var oldValues = values
        keys = Array(repeating: 0, count: capacity ?? max(16, keys.count * 2))
        values = Slots(count: keys.count)
        count = 0
        for index in oldKeys.indices where oldKeys[index] != 0 {
            guard let value = oldValues.take(index) else { continue }  // a removed value: its slot is freed
            insert(oldKeys[index], value)
        }
    }
}

/// The slot where the probe for `key` starts in a table of `mask + 1` slots: Fibonacci hashing, which spreads keys
/// whose low bits are alike (metadata addresses, whose low bits are alignment zeros). ``AddressTable`` and
/// ``KeyedTable`` probe from it.
func homeSlot(of key: UInt, mask: Int) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
}
