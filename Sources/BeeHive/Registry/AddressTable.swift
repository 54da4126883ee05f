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
    private var values: [Value?] = []
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
            if let index = slot(of: address) {
                values[index] = newValue
                return
            }
            guard let newValue else { return }
            if (count + 1) * 2 > keys.count { grow() }
            insert(address, newValue)
        }
    }

    /// What `body` reads from the value for `type`, read in place (copying a slot out would retain and release
    /// what it holds); nil when there is no value.
    func read<Result>(_ type: ObjectIdentifier, _ body: (Value) -> Result?) -> Result? {
        guard let index = slot(of: UInt(bitPattern: type)) else { return nil }
        return values.withUnsafeBufferPointer { values in values[index].flatMap(body) }
    }

    /// Changes the value for `address` (first set to `initial` when there is none) in place.
    mutating func modify(key address: UInt, initial: @autoclosure () -> Value, _ body: (inout Value) -> Void) {
        guard let index = slot(of: address), values[index] != nil else {
            var value = initial()
            body(&value)
            self[key: address] = value
            return
        }
        body(&values[index]!)
    }

    /// Makes room for `count` more values without growing.
    mutating func reserveCapacity(_ count: Int) {
        var capacity = max(16, keys.count)
        while (self.count + count) * 2 > capacity { capacity *= 2 }
        if capacity > keys.count { grow(to: capacity) }
    }

    /// Forgets every value.
    mutating func removeAll() {
        keys = []
        values = []
        count = 0
    }

    /// Forgets the values that `shouldRemove` picks. O(capacity).
    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        let oldKeys = keys
        var oldValues = values
        removeAll()
        for index in oldKeys.indices where oldKeys[index] != 0 {
            guard let value = oldValues[index].take(), !shouldRemove(value) else { continue }
            self[key: oldKeys[index]] = value
        }
    }

    /// Calls `body` with every value, in no particular order.
    func forEach(_ body: (Value) -> Void) {
        for value in values { value.map(body) }
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

    private mutating func insert(_ address: UInt, _ value: Value) {
        let mask = keys.count - 1
        var index = Self.home(of: address, mask: mask)
        while keys[index] != 0 { index = (index + 1) & mask }
        keys[index] = address
        values[index] = value
        count += 1
    }

    private mutating func grow(to capacity: Int? = nil) {
        let oldKeys = keys
        var oldValues = values
        keys = Array(repeating: 0, count: capacity ?? max(16, keys.count * 2))
        values = Array(repeating: nil, count: keys.count)
        count = 0
        for index in oldKeys.indices where oldKeys[index] != 0 {
            guard let value = oldValues[index].take() else { continue }  // a removed value: its slot is freed
            insert(oldKeys[index], value)
        }
    }

    /// Fibonacci hashing of a key (a metadata address, whose low bits are alignment zeros, or a hash).
    private static func home(of address: UInt, mask: Int) -> Int {
        Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }
}

/// A key of a ``KeyedTable``: equatable, with a hash that is never 0.
protocol TableKey: Equatable {
    var tableHash: UInt { get }
}

/// Values by key, found through the key's hash in an ``AddressTable``: a `Dictionary` keyed by `String` or by a key
/// type of our own would make the runtime look that key's `Hashable` conformance up when its storage type is first
/// instantiated (a scan of every conformance record, ~330 K instructions), at registration or at a service's first
/// use. Here the conformance is the compiler's.
struct KeyedTable<Key: TableKey, Value> {
    private var buckets = AddressTable<[(key: Key, value: Value)]>()
    /// The number of keys.
    private(set) var count = 0

    /// The value for `key`, if any; setting nil removes it.
    subscript(key: Key) -> Value? {
        get { buckets[key: key.tableHash]?.first { $0.key == key }?.value }
        set {
            let hash = key.tableHash
            guard let newValue else {
                guard var bucket = buckets[key: hash], let index = bucket.firstIndex(where: { $0.key == key }) else {
                    return
                }
                buckets[key: hash] = nil
                bucket.remove(at: index)
                count -= 1
                if !bucket.isEmpty { buckets[key: hash] = bucket }
                return
            }
            modify(key, initial: newValue) { $0 = newValue }
        }
    }

    /// The value for `key`, or `initial` when there is none, to read or change in place.
    subscript(key: Key, default initial: @autoclosure () -> Value) -> Value {
        get { self[key] ?? initial() }
        set { self[key] = newValue }
    }

    /// Changes the value for `key` (first set to `initial` when there is none) with `body`.
    mutating func modify(_ key: Key, initial: @autoclosure () -> Value, _ body: (inout Value) -> Void) {
        buckets.modify(key: key.tableHash, initial: []) { bucket in
            if let index = bucket.firstIndex(where: { $0.key == key }) {
                body(&bucket[index].value)
            } else {
                var value = initial()
                body(&value)
                bucket.append((key, value))
                count += 1
            }
        }
    }

    var isEmpty: Bool { count == 0 }

    /// Makes room for `count` more keys without growing.
    mutating func reserveCapacity(_ count: Int) { buckets.reserveCapacity(count) }

    /// Forgets the values that `shouldRemove` picks.
    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        var kept: [(key: Key, value: Value)] = []
        buckets.forEach { bucket in kept += bucket.filter { !shouldRemove($0.value) } }
        buckets.removeAll()
        count = 0
        for (key, value) in kept { self[key] = value }
    }

    /// Calls `body` with every key and value, in no particular order.
    func forEach(_ body: (Key, Value) -> Void) {
        buckets.forEach { bucket in for entry in bucket { body(entry.key, entry.value) } }
    }

    /// The keys and values, in no particular order.
    var entries: [(key: Key, value: Value)] {
        var entries: [(key: Key, value: Value)] = []
        forEach { key, value in entries.append((key, value)) }
        return entries
    }

    /// The keys, in no particular order.
    var keys: [Key] {
        var keys: [Key] = []
        forEach { key, _ in keys.append(key) }
        return keys
    }

    /// The values, in no particular order.
    var values: [Value] {
        var values: [Value] = []
        forEach { _, value in values.append(value) }
        return values
    }
}

extension String: TableKey {
    /// FNV-1a of the UTF-8 bytes, never 0 (the table's free slot).
    var tableHash: UInt {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var text = self
        text.withUTF8 { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        return hash == 0 ? 1 : UInt(truncatingIfNeeded: hash)
    }
}
