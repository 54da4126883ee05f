internal import _BeeHiveAtomics

/// A value behind a lock (`bh_atomics.h`, a futex word). The closure passed to `withLock` must not call user code.
///
/// A struct over one non-generic box: a generic class would make the runtime build its metadata the first time each
/// value type is locked, 3 to 7 K instructions each, and a program locks about a dozen of them on its way to a first
/// use.
package struct LockedValue<Value>: @unchecked Sendable {
    private let box: LockedBox

    package init(_ value: Value) {
        box = LockedBox(size: MemoryLayout<Value>.size, alignment: MemoryLayout<Value>.alignment) { value in
            value.assumingMemoryBound(to: Value.self).deinitialize(count: 1)
        }
        box.value.initializeMemory(as: Value.self, to: value)
    }

    @inline(__always)
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        bh_lock_acquire(box.word)
        defer { bh_lock_release(box.word) }
        return try body(&box.value.assumingMemoryBound(to: Value.self).pointee)
    }
}

/// The lock word and the memory of a ``LockedValue``, whose value only the closure made with it can deinitialize.
private final class LockedBox {
    /// The lock (`bh_atomics.h`): taking it free is one compare-and-swap, where a pthread mutex's round trip through
    /// its calls costs ~80 instructions, on every lookup of a service.
    let word: UnsafeMutablePointer<UInt32>
    /// The value, out of line: the lock already makes access exclusive, and a stored `var` would add the
    /// runtime's dynamic exclusivity check (`swift_beginAccess`, ~80 instructions) to every use of the lock.
    let value: UnsafeMutableRawPointer
    private let deinitializeValue: (UnsafeMutableRawPointer) -> Void

    init(size: Int, alignment: Int, deinitializeValue: @escaping (UnsafeMutableRawPointer) -> Void) {
        value = .allocate(byteCount: max(size, 1), alignment: alignment)
        self.deinitializeValue = deinitializeValue
        word = .allocate(capacity: 1)
        word.initialize(to: 0)
    }

    deinit {
        word.deallocate()
        deinitializeValue(value)
        value.deallocate()
    }
}
