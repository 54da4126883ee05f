internal import _BeeHiveDiscovery

/// Finds Swift types by their module-qualified names, with a cache. A name that was not found is
/// looked up again once another image has been loaded (a plugin may bring the type).
///
/// `_typeByName("App.Type")` finds top-level classes. Structs, enums and nested types need a
/// mangled name, whose kind letters (C class, V struct, O enum) the dotted name does not say; the
/// lookup tries each combination (3 per level, at most 4 levels below the module).
package enum TypeLookup {
    private enum Cached {
        case found(Any.Type)
        /// Not found while the loader had loaded this many images; a later `dlopen` may bring it.
        case missing(loadedImages: UInt64)
    }

    private static let cache = LockedValue<[String: Cached]>([:])

    /// How many images the dynamic loader has loaded so far: a lookup that failed may succeed once it grows.
    package static var loadedImageCount: UInt64 { ImageScanner.loadedImageCount }

    package static func type(named name: String) -> Any.Type? {
        let loaded: UInt64
        switch cache.withLock({ $0[name] }) {
        case .found(let type)?: return type
        case .missing(let count)?:
            loaded = loadedImageCount
            if count == loaded { return nil }
        case nil:
            loaded = loadedImageCount
        }
        let found = uncachedType(named: name)
        cache.withLock { $0[name] = found.map { .found($0) } ?? .missing(loadedImages: loaded) }
        return found
    }

    private static func uncachedType(named name: String) -> Any.Type? {
        if let type = _typeByName(name) { return type }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts.count <= 5, parts.allSatisfy(isASCIIIdentifier) else { return nil }
        let module = mangle(parts[0])
        let nested = parts.dropFirst().map(mangle)
        var kinds = [Character](repeating: "C", count: nested.count)
        let letters: [Character] = ["C", "V", "O"]
        var counter = 0
        let combinations = Int(pow3(nested.count))
        while counter < combinations {
            var c = counter
            for i in 0..<nested.count {
                kinds[i] = letters[c % 3]
                c /= 3
            }
            var mangled = module
            for i in 0..<nested.count { mangled += nested[i] + String(kinds[i]) }
            if let type = _typeByName(mangled) { return type }
            counter += 1
        }
        return nil
    }

    private static func pow3(_ n: Int) -> Int { (0..<n).reduce(1) { r, _ in r * 3 } }

    private static func mangle(_ identifier: Substring) -> String { "\(identifier.utf8.count)\(identifier)" }

    private static func isASCIIIdentifier(_ s: Substring) -> Bool {
        guard let first = s.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return s.utf8.allSatisfy { b in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "_")
        }
    }

    /// The name a service type is registered under: its module-qualified name.
    package static func name(of type: Any.Type) -> String { _typeName(type, qualified: true) }
}
