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
