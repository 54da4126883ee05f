/// A shared instance as a value of the service type it was asked for: storage that holds one `Service`.
///
/// Not generic: a generic box would make the runtime instantiate a class's metadata (and an optional's) for every
/// service at its first use. What the value's type is, the key the box is stored under says (see ``SharedInstance``):
/// the service's type, or its ``ServiceKey``.
///
/// One allocation for a value of up to five words (an existential of one protocol, a reference, most structs): it lies
/// in the box itself, where a separate allocation cost ~0.2 K instructions at every first use.
@usableFromInline
final class TypedInstance {
    /// The value when it fits (``fits(_:)``), as its bytes. The box's first stored property, so that its address is
    /// that of the box's stored properties (16-byte aligned): read and written only through that address, as the
    /// value's type. An access through `&inline` would be a modification, which concurrent reads of the box may not
    /// make.
    @usableFromInline var inline = Words()
    /// Where a value that does not fit lies; nil when it is inline.
    @usableFromInline let outOfLine: UnsafeMutableRawPointer?
    /// The type of the value, which `deinit` destroys it as: a metatype, where a closure that destroys it would
    /// capture the type in a context of its own (an allocation per box, unless specialized). For a box made under a
    /// key, the key.
    @usableFromInline let type: any Any.Type
    /// The key whose `Service` the value is, when it was boxed under a key: then `type` is not asked for, so that
    /// boxing names no service type (`deinit` asks the key for it).
    @usableFromInline let key: (any ServiceKey.Type)?

    /// Five words of storage: a type of its own, whose metadata is a constant, where a tuple's would be made by the
    /// runtime from its mangled name the first time unspecialized code takes its address.
    @usableFromInline
    struct Words {
        var words: (UInt, UInt, UInt, UInt, UInt) = (0, 0, 0, 0, 0)

        @usableFromInline init() {}
    }

    /// Boxes `value`.
    @inlinable
    convenience init<Service>(_ value: Service) {
        self.init(value, type: Service.self, key: nil)
    }

    /// Boxes `value`, the service of `key`, without naming the service's type.
    @inlinable
    convenience init<Key: ServiceKey>(_ value: Key.Service, key: Key.Type) {
        self.init(value, type: Key.self, key: key)
    }

    /// Boxes `value`, to be destroyed as `type` (or as the service of `key`).
    @inlinable
    init<Value>(_ value: Value, type: any Any.Type, key: (any ServiceKey.Type)?) {
        let layout = MemoryLayout<Value>.self
        outOfLine =
            Self.fits(layout)
            ? nil : UnsafeMutableRawPointer.allocate(byteCount: layout.size, alignment: layout.alignment)
        self.type = type
        self.key = key
        // Void, not the typed pointer: unspecialized, a result of `UnsafeMutablePointer<Value>` would make the runtime
        // instantiate that type's metadata for every service boxed.
        withValue { _ = $0.initializeMemory(as: Value.self, to: value) }
        assert(
            outOfLine != nil
                || withUnsafeMutablePointer(to: &inline) { p in withValue { $0 == UnsafeMutableRawPointer(p) } })
    }

    /// Whether a value of `layout` lies in the box.
    @inlinable
    static func fits<Value>(_ layout: MemoryLayout<Value>.Type) -> Bool {
        layout.size <= MemoryLayout<Words>.size && layout.alignment <= 16
    }

    /// Calls `body` with the value's address.
    @inlinable
    func withValue<Result>(_ body: (UnsafeMutableRawPointer) -> Result) -> Result {
        // A Swift object's header is two words (its metadata and its reference counts); `inline` follows it.
        body(
            outOfLine ?? UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque()) + 2 * MemoryLayout<Int>.size
        )
    }

    deinit {
        func destroy<Value>(_: Value.Type) {
            withValue { _ = $0.assumingMemoryBound(to: Value.self).deinitialize(count: 1) }
        }
        func destroyService<Key: ServiceKey>(of _: Key.Type) { destroy(Key.Service.self) }
        if let key {
            _openExistential(key, do: destroyService)
        } else {
            _openExistential(type, do: destroy)
        }
        outOfLine?.deallocate()
    }

    /// Whether the value is of the type `type` identifies: the type it was boxed as, or its key's `Service` (which
    /// this asks the key for, naming that type).
    func holds(_ type: ObjectIdentifier) -> Bool {
        guard let key else { return ObjectIdentifier(self.type) == type }
        return key.serviceIdentifier == type
    }

    /// The value, which must be a `Service`.
    @inlinable
    func value<Service>(as _: Service.Type) -> Service {
        withValue { $0.assumingMemoryBound(to: Service.self).pointee }
    }
}
