/// A shared instance as a value of the service type it was asked for: storage that holds one `Service`.
///
/// Not generic: a generic box would make the runtime instantiate a class's metadata (and an optional's) for every
/// service at its first use. What the value's type is, the key the box is stored under says (see ``SharedInstance``):
/// the service's type, or its ``ServiceKey``.
@usableFromInline
final class TypedInstance {
    @usableFromInline let storage: UnsafeMutableRawPointer
    /// The type of the value `storage` holds, which `deinit` destroys it as: a metatype, where a closure that destroys
    /// it would capture the type in a context of its own (an allocation per box, unless specialized). For a box made
    /// under a key, the key.
    @usableFromInline let type: any Any.Type
    /// The key whose `Service` the value is, when it was boxed under a key: then `type` is not asked for, so that
    /// boxing names no service type (`deinit` asks the key for it).
    @usableFromInline let key: (any ServiceKey.Type)?

    /// Boxes `value`.
    @inlinable
    init<Service>(_ value: Service) {
        storage = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Service>.size, alignment: MemoryLayout<Service>.alignment)
        storage.initializeMemory(as: Service.self, to: value)
        type = Service.self
        key = nil
    }

    /// Boxes `value`, the service of `key`, without naming the service's type.
    @inlinable
    init<Key: ServiceKey>(_ value: Key.Service, key: Key.Type) {
        storage = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Key.Service>.size, alignment: MemoryLayout<Key.Service>.alignment)
        storage.initializeMemory(as: Key.Service.self, to: value)
        type = Key.self
        self.key = key
    }

    deinit {
        func destroy<Value>(_: Value.Type) { storage.assumingMemoryBound(to: Value.self).deinitialize(count: 1) }
        func destroyService<Key: ServiceKey>(of _: Key.Type) { destroy(Key.Service.self) }
        if let key {
            _openExistential(key, do: destroyService)
        } else {
            _openExistential(type, do: destroy)
        }
        storage.deallocate()
    }

    /// Whether the value is of the type `type` identifies: the type it was boxed as, or its key's `Service` (which
    /// this asks the key for, naming that type).
    func holds(_ type: ObjectIdentifier) -> Bool {
        guard let key else { return ObjectIdentifier(self.type) == type }
        return key.serviceIdentifier == type
    }

    /// The value, which must be a `Service`.
    @inlinable
    func value<Service>(as _: Service.Type) -> Service { storage.assumingMemoryBound(to: Service.self).pointee }
}
