/// A shared instance as a value of the service type it was asked for: storage that holds one `Service`.
///
/// Not generic: a generic box would make the runtime instantiate a class's metadata (and an optional's) for every
/// service at its first use. What the value's type is, the key the box is stored under says (see ``SharedInstance``).
@usableFromInline
final class TypedInstance {
    @usableFromInline let storage: UnsafeMutableRawPointer
    @usableFromInline let destroy: @Sendable (UnsafeMutableRawPointer) -> Void

    /// Boxes `value`; inlined where `Service` is known, where `destroy` captures nothing.
    @inlinable
    init<Service>(_ value: Service) {
        storage = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Service>.size, alignment: MemoryLayout<Service>.alignment)
        storage.initializeMemory(as: Service.self, to: value)
        destroy = { $0.assumingMemoryBound(to: Service.self).deinitialize(count: 1) }
    }

    deinit {
        destroy(storage)
        storage.deallocate()
    }

    /// The value, which must be a `Service`.
    @inlinable
    func value<Service>(as _: Service.Type) -> Service { storage.assumingMemoryBound(to: Service.self).pointee }
}
