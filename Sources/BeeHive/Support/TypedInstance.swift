/// A shared instance as a value of the service type it was asked for: one allocation that holds one `Service` after
/// its header, the value's type.
///
/// Not generic: a generic box would make the runtime instantiate a class's metadata (and an optional's) for every
/// service at its first use. What the value's type is, the key the box is stored under says (see ``SharedInstance``).
/// The value lies in the box's own tail (a `ManagedBuffer`), not in storage of its own: one allocation per box where
/// there were two (~0.3 K instructions per service made).
@usableFromInline
final class TypedInstance: ManagedBuffer<any Any.Type, UInt64> {
    /// Boxes `value`, whose type the header keeps: `deinit` destroys the value as that type.
    @inlinable
    static func make<Service>(_ value: Service) -> TypedInstance {
        // Words enough for the value at its alignment (the tail is 8-aligned; a stricter value starts further in).
        let slack = max(MemoryLayout<Service>.alignment - MemoryLayout<UInt64>.alignment, 0)
        let words = (MemoryLayout<Service>.size + slack + MemoryLayout<UInt64>.size - 1) / MemoryLayout<UInt64>.size
        let box = unsafeDowncast(create(minimumCapacity: words) { _ in Service.self }, to: TypedInstance.self)
        box.address(of: Service.self).initializeMemory(as: Service.self, to: value)
        return box
    }

    deinit {
        func destroy<Value>(_: Value.Type) {
            address(of: Value.self).assumingMemoryBound(to: Value.self).deinitialize(count: 1)
        }
        _openExistential(header, do: destroy)
    }

    /// Where a value of type `Value` lies in the tail.
    @inlinable
    func address<Value>(of _: Value.Type) -> UnsafeMutableRawPointer {
        withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) }.alignedUp(for: Value.self)
    }

    /// The value, which must be a `Service`.
    @inlinable
    func value<Service>(as _: Service.Type) -> Service {
        address(of: Service.self).assumingMemoryBound(to: Service.self).pointee
    }
}
