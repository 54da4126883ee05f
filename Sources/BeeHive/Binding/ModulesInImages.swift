internal import _BeeHiveDiscovery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A module in one loaded image (by the image's id, unique in the process and never reused).
struct ModuleInImage: TableKey {
    let module: String
    let image: UInt64

    var tableHash: UInt { module.tableHash(with: UInt(truncatingIfNeeded: image)) }
}

/// What a binding by name read of modules in images (an index of their types, their conformances), and the one asked
/// for last: the names of one image's records are bound one after another, and comparing with the last key costs less
/// than making and hashing the key (~0.4 K instructions).
struct ModulesInImages<Value> {
    var table = KeyedTable<ModuleInImage, Value>()
    var last: (key: ModuleInImage, value: Value)?

    /// The value asked for last, when it is of the module of `name` (its first `length` UTF-8 bytes) in `image`.
    func lastValue(ofModuleOf name: String, length: Int, inImage image: UInt64) -> Value? {
        guard let last, last.key.image == image, last.key.module.utf8.count == length,
            name.startsWithUTF8(of: last.key.module)
        else { return nil }
        return last.value
    }

    /// The value of `key`, if it was read; it becomes the last one asked for.
    mutating func value(for key: ModuleInImage) -> Value? {
        guard let value = table[key] else { return nil }
        last = (key, value)
        return value
    }

    /// Keeps `value` for `key`, the last one asked for.
    mutating func keep(_ value: Value, for key: ModuleInImage) {
        table[key] = value
        last = (key, value)
    }
}

extension LockedValue {
    /// The value of the module of `name` (its first `length` UTF-8 bytes) in the image `image`: the one asked for last,
    /// else the one kept for that key, else what `read` makes of the module's name, outside the lock, kept and made
    /// the last one asked for. Nil when `read` gives nil (nothing kept: the next question reads again).
    func value<Read>(
        ofModuleOf name: String, length: Int, inImage image: UInt64, reading read: (String) -> Read?
    ) -> Read? where Value == ModulesInImages<Read> {
        if let last = withLock({ $0.lastValue(ofModuleOf: name, length: length, inImage: image) }) { return last }
        let key = ModuleInImage(module: String(TypeLookup.moduleName(of: name)), image: image)
        if let known = withLock({ $0.value(for: key) }) { return known }
        guard let value = read(key.module) else { return nil }
        withLock { $0.keep(value, for: key) }
        return value
    }
}

extension String {
    /// Whether the string's UTF-8 bytes begin with those of `prefix`: compared in place (`hasPrefix` compares
    /// characters, ~0.25 K instructions for a module's name).
    fileprivate func startsWithUTF8(of prefix: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { own in
            prefix.utf8.withContiguousStorageIfAvailable { start in
                own.count >= start.count
                    && (start.isEmpty || memcmp(own.baseAddress!, start.baseAddress!, start.count) == 0)
            }
        }
        return (compared ?? nil) ?? utf8.starts(with: prefix.utf8)
    }
}
