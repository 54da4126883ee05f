/// A shared instance as a value of the service type it was asked for: storage that holds one `Service`.
///
/// Not generic: a generic box would make the runtime instantiate a class's metadata (and an optional's) for every
/// service at its first use. What the value's type is, the key the box is stored under says (see ``SharedInstance``).
@usableFromInline
final class TypedInstance {
    @usableFromInline let storage: UnsafeMutableRawPointer
    /// The type of the value `storage` holds, which `deinit` destroys it as: a metatype, where a closure that destroys
    /// it would capture the type in a context of its own (an allocation per box, unless specialized).
    @usableFromInline let type: any Any.Type

    /// Boxes `value`.
    @inlinable
    init<Service>(_ value: Service) {
        storage = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Service>.size, alignment: MemoryLayout<Service>.alignment)
        storage.initializeMemory(as: Service.self, to: value)
        type = Service.self
    }

    deinit {
        func destroy<Value>(_: Value.Type) { storage.assumingMemoryBound(to: Value.self).deinitialize(count: 1) }
        _openExistential(type, do: destroy)
        storage.deallocate()
    }

    /// The value, which must be a `Service`.
    @inlinable
    func value<Service>(as _: Service.Type) -> Service { storage.assumingMemoryBound(to: Service.self).pointee }
}
