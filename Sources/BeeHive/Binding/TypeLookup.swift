internal import _BeeHiveDiscovery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Finds Swift types by their module-qualified names, with a cache. A name that was not found is
/// looked up again once another image has been loaded (a plugin may bring the type).
///
/// The first look-up in a module walks the type records of the image the name was written in (``Origin``) and keeps
/// every name of that module there; when that image has no type of the name, the loaded Swift images' records, once
/// (``SwiftTypes``, over `_BeeHiveRuntime`, which checks every pointer it follows). A type's metadata then comes from
/// its own access function. The first type so bound in each image is compared with the runtime's answer
/// (``RuntimeBinding``). The Swift runtime's `_typeByName` instead scans every type record of the process for each
/// name, and needs the kind of every level (class, struct, enum) that a dotted name does not say: it is the path when
/// the fast one is switched off (``BindingPath/runtime``), for images whose metadata BeeHive cannot read or whose
/// self-check failed, and when the images cannot be enumerated.
package enum TypeLookup {
    /// The image a name was written in (an annotation record's): the type it names is looked for there first, which
    /// reads one image's types instead of every loaded image's.
    package struct Origin {
        /// The loaded image's id, unique in the process and never reused.
        let id: UInt64
        /// An address inside the image, as the scanner saw it loaded.
        let address: UnsafeRawPointer

        package init(id: UInt64, address: UnsafeRawPointer) {
            self.id = id
            self.address = address
        }

        /// The main program (id 0, which no image the scanner finds gets: the program is never unloaded).
        package static var mainProgram: Origin? { ImageScanner.mainProgramAddress.map { Origin(id: 0, address: $0) } }
    }

    private enum Cached {
        case found(Any.Type, BindingPath)
        /// Not found while the loader had loaded this many images; a later `dlopen` may bring it.
        case missing(loadedImages: UInt64)
    }

    /// The named types and protocols of one module, as the loaded images had them, by name (``SwiftTypes/Index``).
    /// Immutable, and a class: a look-up copies one reference out of the lock, not the tables.
    private final class ModuleIndex: @unchecked Sendable {
        let loadedImages: UInt64
        private let index: SwiftTypes.Index
        /// Whether an image could not be read for a version BeeHive does not know: a miss asks the runtime.
        let hasUnreadImages: Bool

        /// The index of `module` (of every module when nil; in the image that holds `near` alone, when given), after
        /// noting the walk's problems: the entries of corrupt images left out. Nil when the images cannot be
        /// enumerated.
        init?(module: String?, near: UnsafeRawPointer? = nil, loadedImages: UInt64) {
            guard let (index, problems) = SwiftTypes.Index.make(inModule: module, near: near) else { return nil }
            RuntimeBinding.note(problems)
            for image in RuntimeBinding.corruptImages { index.drop(image: image) }
            self.loadedImages = loadedImages
            self.index = index
            self.hasUnreadImages = problems.contains { !$0.isCorrupt }
        }

        /// Every named type and protocol of the module, in the walk's order.
        var all: [SwiftTypes.Entry] { index.all }

        /// The entries named `name`, in the walk's order.
        func entries(named name: String) -> [SwiftTypes.Entry] { index.entries(named: name) }

        /// What `body` makes of the UTF-8 bytes of the name of the existential `type`'s one protocol, when it is one of
        /// this module's, read in place.
        func withExistentialName<Result>(
            of type: Any.Type, _ body: (UnsafeBufferPointer<UInt8>) -> Result?
        ) -> Result? {
            index.withExistentialName(of: type, body)
        }

        /// What `body` makes of the one entry named `name`, when there is exactly one (no array to make).
        func withOnlyEntry<Result>(named name: String, _ body: (SwiftTypes.Entry) -> Result?) -> Result? {
            index.withOnlyEntry(named: name, body)
        }

        /// The index, when it holds the type `descriptor`: then it holds every type of the module in that type's image.
        func holding(_ descriptor: UnsafeRawPointer) -> SwiftTypes.Index? { index.holdsType(descriptor) ? index : nil }
    }

    /// By path: the runtime's path keeps its own cache, so that switching paths never serves the other's answer. In
    /// ``KeyedTable``s: a `Dictionary` keyed by `String` makes the runtime scan every conformance record for
    /// `String: Hashable` when it is first made, at the first look-up by name.
    private static let metadataCache = LockedValue(KeyedTable<String, Cached>())
    private static let runtimeCache = LockedValue(KeyedTable<String, Cached>())
    private static let modules = LockedValue(KeyedTable<String, ModuleIndex>())
    /// Modules as one image has them, for names written in that image (``Origin``).
    private static let modulesInImages = LockedValue(ModulesInImages<ModuleIndex>())

    /// Images of retired plugins (by mapped path): their types are no longer found by name, so that a new version
    /// that names its types as the old one did is found instead (the old one stays mapped).
    private static let retiredImages = LockedValue<Set<String>>([])

    /// Stops finding the types of the image at `path` by name (a retired plugin); forgets the cached look-ups.
    package static func retire(imagePath path: String) {
        retiredImages.withLock { _ = $0.insert(path) }
        metadataCache.withLock { $0 = KeyedTable() }
        runtimeCache.withLock { $0 = KeyedTable() }
        modules.withLock { $0 = KeyedTable() }
        modulesInImages.withLock { $0 = ModulesInImages<ModuleIndex>() }
    }

    /// An index of `module`'s types made for a binding by name that holds the type `descriptor`, so every type of the
    /// module in its image: the one asked for last, else the module's in every image; nil when neither was made or
    /// holds it. A walk of the module's conformances then tells its types by their descriptors.
    static func typeIndex(ofModule module: String, holding descriptor: UnsafeRawPointer) -> SwiftTypes.Index? {
        if let last = modulesInImages.withLock({ $0.last }), last.key.module == module,
            let index = last.value.holding(descriptor)
        {
            return index
        }
        return modules.withLock { $0[module] }?.holding(descriptor)
    }

    /// How many images the dynamic loader has loaded so far: a lookup that failed may succeed once it grows.
    package static var loadedImageCount: UInt64 { ImageScanner.loadedImageCount }

    /// The type named `name`, bound by `path` (the shared hive's, or the environment's, by default); looked for first
    /// in the image the name was written in, when known.
    package static func type(
        named name: String, path: BindingPath? = nil, for hive: Hive? = nil, writtenIn origin: Origin? = nil
    ) -> Any.Type? {
        binding(named: name, path: path, for: hive, writtenIn: origin)?.type
    }

    /// The type named `name` and the path that bound it: ``BindingPath/metadata`` unless the switch, the image's state
    /// or its self-check sent it to the runtime's look-up. Diagnostics about images go to `hive` (or the shared hive).
    /// The metadata path looks in `origin`, the image the name was written in, before it looks in every image.
    package static func binding(
        named name: String, path: BindingPath? = nil, for hive: Hive? = nil, writtenIn origin: Origin? = nil
    ) -> (type: Any.Type, path: BindingPath)? {
        if let typed = TypedRecords.type(named: name) { return (typed, .metadata) }
        let path = path ?? hive?.bindingPath ?? Hive.defaultBindingPath
        var loaded: UInt64?
        let cache = path == .metadata ? metadataCache : runtimeCache
        switch cache.withLock({ $0[name] }) {
        case .found(let type, let by)?: return (type, by)
        case .missing(let count)?:
            loaded = loadedImageCount
            if count == loaded { return nil }
        case nil:
            if path != .metadata { loaded = loadedImageCount }
        }
        func lookUp() -> (Any.Type, BindingPath)? {
            path == .metadata
                ? metadataBinding(named: name, writtenIn: origin) : typeByMangledName(name).map { ($0, .runtime) }
        }
        var found = lookUp()
        if found?.1 != .metadata && loaded == nil {
            // A miss, or the runtime's answer, is kept with the count of images loaded before the look-up that gave
            // it: counted now (a walk of the loader's list under its lock, ~0.17 K instructions, which a binding by
            // the module's index does without), then looked up again.
            loaded = loadedImageCount
            found = lookUp()
        }
        RuntimeBinding.deliver(to: hive)
        if let found, found.1 == .runtime { RuntimeBinding.countRuntime(.type) }
        // A type its module's index bound is not kept here: the index is kept, and a look-up in it costs about what
        // keeping the answer would (a binding is made once per registration).
        if found?.1 != .metadata {
            cache.withLock { $0[name] = found.map { .found($0.0, $0.1) } ?? .missing(loadedImages: loaded ?? 0) }
        }
        return found.map { (type: $0.0, path: $0.1) }
    }

    /// The types and protocols named `name` in the loaded images (more than one when several images define it), or
    /// nil when the images cannot be enumerated.
    /// - Parameter refreshing: Whether to read the module again when images were loaded since it was read.
    static func declarations(named name: String, refreshing: Bool = false) -> [SwiftTypes.Entry]? {
        index(of: moduleName(of: name), refreshing: refreshing).map { $0.entries(named: name) }
    }

    /// The names of the loaded types (or protocols) of `name`'s module closest to `name`, a typo's likely intent;
    /// of every module when that module has none.
    package static func closestNames(to name: String, protocols: Bool = false, limit: Int = 3) -> [String] {
        let kinds: Set<SwiftTypes.Kind> = protocols ? [.protocol] : [.class, .struct, .enum]
        let module = moduleName(of: name)
        let candidates = index(of: module)?.all.filter { kinds.contains($0.kind) } ?? []
        guard candidates.isEmpty else {
            return ClosestNames.closest(to: name, among: Set(candidates.map(\.name)), limit: limit)
        }
        // No such module: the same name in another module (the module was misspelt, or the type moved).
        let unqualified = name.dropFirst(module.count + 1)
        let everywhere =
            ModuleIndex(module: nil, loadedImages: loadedImageCount)?.all.filter { kinds.contains($0.kind) } ?? []
        var byUnqualified: [String: [String]] = [:]
        for entry in everywhere {
            guard let dot = entry.name.firstIndex(of: ".") else { continue }
            byUnqualified[String(entry.name[entry.name.index(after: dot)...]), default: []].append(entry.name)
        }
        let close = ClosestNames.closest(to: String(unqualified), among: Set(byUnqualified.keys), limit: limit)
        return Array(close.flatMap { byUnqualified[$0] ?? [] }.sorted().prefix(limit))
    }

    /// What the loaded images have under `name`, for a message about a name that is no usable type: "found none",
    /// "found a protocol", "found a generic type", "found no module M".
    package static func whatIsNamed(_ name: String) -> String {
        guard let declarations = declarations(named: name) else { return "found none" }
        if declarations.contains(where: { $0.kind == .protocol }) { return "found a protocol of that name" }
        if declarations.contains(where: \.isGeneric) {
            return "found a generic type, which a name cannot make (it needs its type arguments)"
        }
        let module = moduleName(of: name)
        guard index(of: module)?.all.isEmpty ?? false else { return "found none" }
        // Images whose metadata is corrupt are not read: the module may be in one of them.
        let corrupt = RuntimeBinding.corruptImages.map {
            UnsafeRawPointer(bitPattern: $0).flatMap(RuntimeImage.path(of:)) ?? "an image"
        }
        guard !corrupt.isEmpty else { return "found no module \(module) in any loaded image" }
        return "found no module \(module) in any loaded image BeeHive can read (corrupt, not read: "
            + "\(corrupt.sorted().joined(separator: ", ")); see the unreadableImage error)"
    }

    /// The paths of the images that define a protocol named `name`, when more than one does.
    /// - Parameter refreshing: Whether to read the module again when images were loaded since it was read (a plugin
    ///   being loaded).
    package static func imagesDefiningProtocol(named name: String, refreshing: Bool = false) -> [String] {
        let protocols = (declarations(named: name, refreshing: refreshing) ?? []).filter { $0.kind == .protocol }
        guard Set(protocols.compactMap(\.image)).count > 1 else { return [] }
        return Set(protocols.map { $0.imagePath ?? "an image without a path" }).sorted()
    }

    /// How many of the loaded protocols named `name` `type` conforms to (as the Swift runtime decides, without an
    /// instance), and how many there are: more than one when images each have their own copy.
    static func conformance(of type: any Any.Type, toProtocolNamed name: String) -> (conforming: Int, copies: Int) {
        let protocols = (declarations(named: name) ?? []).filter { $0.kind == .protocol }
        return (protocols.filter { $0.isConformed(by: type) }.count, protocols.count)
    }

    /// The index of `module`, built when first asked for and again when a look-up misses after the loader loaded
    /// more images.
    private static func index(of module: Substring, refreshing: Bool = false) -> ModuleIndex? {
        let loaded = loadedImageCount
        let module = String(module)
        if let known = modules.withLock({ $0[module] }), !(refreshing && known.loadedImages != loaded) {
            return known
        }
        guard let index = ModuleIndex(module: module, loadedImages: loaded) else { return nil }
        modules.withLock { $0[module] = index }
        return index
    }

    /// The index of the module of `name` (its first `length` UTF-8 bytes) in the image `origin` alone, built when first
    /// asked for (an image's types do not change while it is loaded, and its id is never reused); nil when no loaded
    /// image holds the origin's address.
    private static func index(ofModuleOf name: String, length: Int, in origin: Origin) -> ModuleIndex? {
        modulesInImages.value(ofModuleOf: name, length: length, inImage: origin.id) { module in
            ModuleIndex(module: module, near: origin.address, loadedImages: loadedImageCount)
        }
    }

    /// The metadata path: the module's index (the origin image's first), the type from its access function, the
    /// image's self-check.
    private static func metadataBinding(named name: String, writtenIn origin: Origin?) -> (Any.Type, BindingPath)? {
        let moduleLength = moduleLength(of: name)
        guard moduleLength < name.utf8.count else { return typeByMangledName(name).map { ($0, .runtime) } }
        if let origin, let local = index(ofModuleOf: name, length: moduleLength, in: origin),
            let found = binding(in: local, named: name)
        {
            return found
        }
        guard let index = index(of: moduleName(of: name), refreshing: true) else {
            return typeByMangledName(name).map { ($0, .runtime) }
        }
        if let found = binding(in: index, named: name) { return found }
        // An image BeeHive could not read (a metadata version it does not know) may hold it: the runtime reads it.
        if index.hasUnreadImages, let type = typeByMangledName(name) { return (type, .runtime) }
        return nil
    }

    /// The type named `name` among the entries of `index`: the first that binds, in the walk's order, of an image not
    /// retired.
    private static func binding(in index: ModuleIndex, named name: String) -> (Any.Type, BindingPath)? {
        if let found = index.withOnlyEntry(named: name, { binding(of: $0, named: name) }) { return found }
        let retired = retiredImages.withLock { $0 }
        for entry in index.entries(named: name) where retired.isEmpty || !retired.contains(entry.imagePath ?? "") {
            if let found = binding(of: entry, named: name) { return found }
        }
        return nil
    }

    /// The type of `entry`, named `name`: from its access function when its image's self-check trusts it, else the
    /// runtime's answer; nil for a protocol, or an image that is corrupt or disagreed.
    private static func binding(of entry: SwiftTypes.Entry, named name: String) -> (Any.Type, BindingPath)? {
        guard entry.kind != .protocol else { return nil }
        // An image that disagreed or is corrupt is not asked for its type (its access function is its own code).
        if let state = RuntimeBinding.imageState(entry.image), state != .agreed {
            return state == .runtime ? typeByMangledName(name).map { ($0, .runtime) } : nil
        }
        guard let type = entry.type else { return nil }
        var answer: Any.Type?
        if trusts(type, named: name, descriptor: entry.descriptor, image: entry.image, answer: &answer) {
            return (type, .metadata)
        }
        return (answer ?? typeByMangledName(name)).map { ($0, .runtime) }
    }

    /// Whether the self-check of `image` trusts `type`, which BeeHive's reading of the type descriptor `descriptor`
    /// bound to `name` (the check is made on the image's first binding, and its outcome kept). `answer` gets the
    /// runtime's own answer when the check asked for it.
    static func trusts(
        _ type: any Any.Type, named name: String, descriptor: UnsafeRawPointer, image: UnsafeRawPointer?,
        answer: inout (any Any.Type)?
    ) -> Bool {
        RuntimeBinding.selfCheck(image: image, what: "the type \(name)") {
            // In the image that holds BeeHive, BeeHive's own type that the compiler resolved is read instead.
            if let image, let verdict = ConformanceAnchor.typeVerdict(in: image) { return verdict }
            // The runtime names the metadata that the access function BeeHive found returned: the name BeeHive read
            // from the descriptor, when both readings agree. That costs a demangling; the runtime's look-up by name
            // (its first one walks every type record of the process) decides only when the names differ.
            if _typeName(type, qualified: true) == name { return true }
            answer = SwiftTypes.mangledName(of: descriptor).flatMap { _typeByName($0) } ?? typeByMangledName(name)
            return answer.map { ObjectIdentifier($0) == ObjectIdentifier(type) } ?? false
        }
    }

    /// The module of a module-qualified name: what precedes its first dot (all of it when there is none).
    static func moduleName(of name: String) -> Substring {
        name[..<name.utf8.index(name.utf8.startIndex, offsetBy: moduleLength(of: name))]
    }

    /// The length in UTF-8 bytes of the module of a module-qualified name (its whole length when it has no dot). Found
    /// in the bytes: walking a string's characters costs ~5 K instructions for a 20-character name, and cutting it
    /// (``moduleName(of:)``) another ~0.3 K, which a binding by name skips when the module is the last one asked for.
    static func moduleLength(of name: String) -> Int {
        let utf8 = name.utf8
        // In the contiguous bytes when the string has them (a native one), by `memchr`: the view's own search costs
        // ~20 instructions per byte, a loop over the buffer ~4.
        let dot =
            utf8.withContiguousStorageIfAvailable { bytes -> Int? in
                guard let start = bytes.baseAddress, let dot = memchr(start, Int32(UInt8(ascii: ".")), bytes.count)
                else { return nil }
                return UnsafeRawPointer(dot) - UnsafeRawPointer(start)
            }
            ?? utf8.firstIndex(of: UInt8(ascii: ".")).map { utf8.distance(from: utf8.startIndex, to: $0) }
        return dot ?? utf8.count
    }

    /// The Swift runtime's look-up, trying each kind of each level.
    private static func typeByMangledName(_ name: String) -> Any.Type? {
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

    /// What `body` makes of the UTF-8 bytes of `type`'s module-qualified name, when it is the existential of a protocol:
    /// read in place when the index of the module bound last holds the protocol, else written on the stack from its
    /// descriptors (``Conformances/withExistentialName(of:_:)``); no string made.
    static func withKnownName<Result>(of type: Any.Type, _ body: (UnsafeBufferPointer<UInt8>) -> Result?) -> Result? {
        if let index = modulesInImages.withLock({ $0.last?.value }),
            let found = index.withExistentialName(of: type, body)
        {
            return found
        }
        return Conformances.withExistentialName(of: type, body)
    }

    /// The module-qualified name of a type (a service, implementation, module or handler), as the runtime spells it.
    /// A protocol's existential (`any P`) is named from its descriptor; other types by the runtime.
    package static func name(of type: Any.Type) -> String {
        // The services of one module are asked for one after another: the index of the module bound last has their
        // protocols' names already (~0.7 K instructions less than reading each protocol's descriptors).
        withKnownName(of: type) { String(decoding: $0, as: UTF8.self) } ?? _typeName(type, qualified: true)
    }
}
