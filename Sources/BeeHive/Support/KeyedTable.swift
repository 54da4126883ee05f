/// A key of a ``KeyedTable``: equatable, with a hash that is never 0.
protocol TableKey: Equatable {
    var tableHash: UInt { get }
}

/// Values by key, found through the key's hash by open addressing: a `Dictionary` keyed by `String` or by a key type
/// of our own would make the runtime look that key's `Hashable` conformance up when its storage type is first
/// instantiated (a scan of every conformance record, ~330 K instructions), at registration or at a service's first
/// use. Here the conformance is the compiler's, and a key costs no allocation of its own.
///
/// The type itself asks nothing of `Key`; its operations do (`where Key: TableKey`). A generic requirement on the type
/// would make the runtime check it whenever it makes the type's metadata from a mangled name (a global's or a stored
/// property's type), which looks the conformance up: a scan of every conformance record, ~215 K instructions, the
/// first time per key type.
struct KeyedTable<Key, Value> {
    /// The slots' hashes, 0 for a slot never used; a power of two long, at most half used (removed keys included).
    private var hashes: [UInt] = []
    /// The keys and values; nil in a free slot and in a removed key's slot, which keeps its hash so that probes
    /// go on past it.
    private var slots = Slots<(key: Key, value: Value)>()
    /// Slots with a hash: keys and removed keys.
    private var used = 0
    /// The number of keys.
    private(set) var count = 0
}

extension KeyedTable where Key: TableKey {

    /// The value for `key`, if any; setting nil removes it.
    subscript(key: Key) -> Value? {
        get {
            // An empty table (no typed records, when a program has none) costs no hash of the key.
            guard count > 0, let index = index(of: key, hash: key.tableHash) else { return nil }
            return slots.withUnsafeBufferPointer { $0[index]?.value }  // copies the value, not the key
        }
        set {
            guard let newValue else {
                guard let index = index(of: key, hash: key.tableHash) else { return }
                slots[index] = nil
                count -= 1
                return
            }
            modify(key, initial: newValue) { $0 = newValue }
        }
    }

    /// Changes the value for `key` (first set to `initial` when there is none) with `body`.
    mutating func modify(_ key: Key, initial: @autoclosure () -> Value, _ body: (inout Value) -> Void) {
        let hash = key.tableHash
        if (used + 1) * 2 > hashes.count { grow(to: max(16, (count + 1) * 4)) }
        // One probe: the key's slot, or the slot never used where its probe ends, which takes it.
        let mask = hashes.count - 1
        var index = homeSlot(of: hash, mask: mask)
        let isNew = slots.withUnsafeBufferPointer { slots in
            hashes.withUnsafeMutableBufferPointer { hashes in
                while true {
                    let found = hashes[index]
                    if found == 0 {
                        hashes[index] = hash
                        return true
                    }
                    if found == hash, slots[index]?.key == key { return false }
                    index = (index + 1) & mask
                }
            }
        }
        guard isNew else {
            slots.update(index) { body(&$0!.value) }
            return
        }
        var value = initial()
        body(&value)
        slots[index] = (key, value)
        used += 1
        count += 1
    }

    var isEmpty: Bool { count == 0 }

    /// Makes room for `count` more keys without growing.
    mutating func reserveCapacity(_ count: Int) {
        var capacity = max(16, hashes.count)
        while (used + count) * 2 > capacity { capacity *= 2 }
        if capacity > hashes.count { grow(to: capacity) }
    }

    /// Forgets the values that `shouldRemove` picks.
    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        for index in slots.indices {
            guard let entry = slots[index], shouldRemove(entry.value) else { continue }
            slots[index] = nil
            count -= 1
        }
    }

    /// The keys and values, in no particular order.
    var entries: [(key: Key, value: Value)] { slots.elements }

    /// The keys, in no particular order.
    var keys: [Key] { slots.withUnsafeBufferPointer { $0.compactMap { $0?.key } } }

    /// The values, in no particular order.
    var values: [Value] { slots.withUnsafeBufferPointer { $0.compactMap { $0?.value } } }

    /// The key whose hash is `hash` and that `matches`, and its value, if any: a look-up by what a key is made from
    /// (its bytes), which makes no key to ask with.
    func entry(hash: UInt, where matches: (Key) -> Bool) -> (key: Key, value: Value)? {
        index(hash: hash, where: matches).flatMap { index in slots.withUnsafeBufferPointer { $0[index] } }
    }

    /// The slot holding `key`, if any.
    private func index(of key: Key, hash: UInt) -> Int? { index(hash: hash) { $0 == key } }

    /// The slot of the key whose hash is `hash` and that `matches`, if any: keys compared in place, copying no value.
    private func index(hash: UInt, where matches: (Key) -> Bool) -> Int? {
        guard !hashes.isEmpty else { return nil }
        let mask = hashes.count - 1
        var index = homeSlot(of: hash, mask: mask)
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let found = hashes[index]
                if found == 0 { return nil }
                if found == hash, slots[index].map({ matches($0.key) }) == true { return index }
                index = (index + 1) & mask
            }
        }
    }

    /// Puts a key that is not in the table into the first slot never used on its probe.
    private mutating func insert(_ hash: UInt, _ entry: (key: Key, value: Value)) {
        let mask = hashes.count - 1
        var index = homeSlot(of: hash, mask: mask)
        while hashes[index] != 0 { index = (index + 1) & mask }
        hashes[index] = hash
        slots[index] = entry
        used += 1
        count += 1
    }

    /// Moves the keys into `capacity` slots (a power of two), leaving removed keys behind.
    private mutating func grow(to capacity: Int) {
        var size = 16
        while size < capacity { size *= 2 }
        let oldHashes = hashes
        var oldSlots = slots
        hashes = Array(repeating: 0, count: size)
        slots = Slots(count: size)
        used = 0
        count = 0
        for index in oldHashes.indices {
            guard let entry = oldSlots.take(index) else { continue }
            insert(oldHashes[index], entry)
        }
    }
}

extension String {
    /// What `body` makes of the string's UTF-8 bytes, read in place when the string has them contiguous (a native
    /// one), else from a copy made so (a bridged one). The string itself is not mutated, as `withUTF8` would.
    @inline(__always)
    func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }

    /// The ``tableHash`` of this string and `word` together: a key made of a name and an address or an id (a module
    /// in one image).
    func tableHash(with word: UInt) -> UInt { tableHash ^ (word &* 0x9E37_79B9_7F4A_7C15) | 1 }
}

extension String: TableKey {
    /// A hash of the UTF-8 bytes and their count, eight bytes at a time (a multiply and a shift per word), never 0
    /// (the table's free slot). Byte by byte (FNV-1a) it cost ~180 instructions for a 25-byte type name.
    var tableHash: UInt { withUTF8Bytes(Self.tableHash(of:)) }

    /// The ``tableHash`` of the string whose UTF-8 is `bytes`.
    @inline(__always)
    static func tableHash(of bytes: UnsafeBufferPointer<UInt8>) -> UInt {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        let count = bytes.count
        var hash = 0xcbf2_9ce4_8422_2325 ^ UInt64(count)
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* multiplier
            hash ^= hash &>> 29
        }
        if count >= 8, let base = bytes.baseAddress.map(UnsafeRawPointer.init) {
            var offset = 0
            while offset + 8 <= count {
                mix(base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            // The last bytes: the word that ends the string (it overlaps the one before).
            if offset < count { mix(base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) }
        } else {
            var word: UInt64 = 0
            for byte in bytes { word = word &<< 8 | UInt64(byte) }
            mix(word)
        }
        hash = hash &* multiplier
        hash ^= hash &>> 32
        return hash == 0 ? 1 : UInt(truncatingIfNeeded: hash)
    }
}
