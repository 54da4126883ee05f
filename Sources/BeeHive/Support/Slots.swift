/// A fixed number of optional slots, copied on write like an array: the storage of ``AddressTable`` and
/// ``KeyedTable``.
///
/// An `Array` of a table's slot type (`[ServiceEntry?]`, `[(key: String, value: TypedRecords.Declared)?]`) makes the
/// runtime build the metadata of `_ContiguousArrayStorage<Slot>` from its mangled name the first time one is
/// allocated: 10 to 35 K instructions per slot type, paid at registration and again at a first use, several times
/// over in a small program. Here the memory is allocated by hand and owned by a class with no generic parameter,
/// whose metadata the compiler emits; the slot type appears only in code the compiler specializes.
struct Slots<Element> {
    /// Owns the memory; shared by copies until one of them writes.
    private var buffer: SlotBuffer?
    /// The buffer's memory, read without touching the buffer's reference count.
    private var base: UnsafeMutablePointer<Element?>?
    /// The number of slots.
    private(set) var count = 0

    /// No slots.
    init() {}

    /// `count` empty slots.
    init(count: Int) {
        guard count > 0 else { return }
        let buffer = SlotBuffer(count: count, of: Element.self)
        self.buffer = buffer
        self.base = buffer.base.assumingMemoryBound(to: Element?.self)
        self.count = count
    }

    /// The slots' indices.
    var indices: Range<Int> { 0..<count }

    /// The element in slot `index`, or nil for an empty slot.
    subscript(index: Int) -> Element? {
        get {
            precondition(index >= 0 && index < count, "slot index out of range")
            return base![index]
        }
        set { update(index) { $0 = newValue } }
    }

    /// Changes the slot `index` in place with `body`.
    mutating func update<Result>(_ index: Int, _ body: (inout Element?) throws -> Result) rethrows -> Result {
        precondition(index >= 0 && index < count, "slot index out of range")
        if !isKnownUniquelyReferenced(&buffer!) {
            let copy = buffer!.copy()
            buffer = copy
            base = copy.base.assumingMemoryBound(to: Element?.self)
        }
        return try body(&base![index])
    }

    /// Empties the slot `index` and returns what it held.
    mutating func take(_ index: Int) -> Element? { update(index) { $0.take() } }

    /// Calls `body` with the slots in place (reading a slot through it copies only what `body` copies). The slots
    /// stay alive as long as this value: `body` must not keep the pointer.
    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<Element?>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The elements of the slots that hold one, in slot order.
    var elements: [Element] { withUnsafeBufferPointer { $0.compactMap { $0 } } }
}

/// The memory of a ``Slots``: `count` slots of a type that only the closures made with it know, which deinitialize
/// and free them, and copy them into new memory.
private final class SlotBuffer {
    let base: UnsafeMutableRawPointer
    let count: Int
    private let destroy: (UnsafeMutableRawPointer, Int) -> Void
    private let duplicate: (UnsafeMutableRawPointer, Int) -> UnsafeMutableRawPointer

    /// `count` empty slots of `Element?`.
    init<Element>(count: Int, of _: Element.Type) {
        let slots = UnsafeMutablePointer<Element?>.allocate(capacity: count)
        // One nil, then its bytes copied over the rest, doubling (a nil holds no reference to retain):
        // `initialize(repeating:count:)` stores each slot in turn, a `memset` call per slot for the larger ones.
        slots.initialize(to: nil)
        let base = UnsafeMutableRawPointer(slots)
        let stride = MemoryLayout<Element?>.stride
        var filled = 1
        while filled < count {
            let copied = min(filled, count - filled)
            (base + filled * stride).copyMemory(from: base, byteCount: copied * stride)
            filled += copied
        }
        self.base = base
        self.count = count
        // Slot by slot: `deinitialize(count:)` and `initialize(from:count:)` of a type with references call the
        // runtime's array functions, which take the type's metadata, built from its mangled name on first use.
        self.destroy = { base, count in
            let slots = base.assumingMemoryBound(to: Element?.self)
            for index in 0..<count { _ = (slots + index).move() }
            slots.deallocate()
        }
        self.duplicate = { base, count in
            let slots = base.assumingMemoryBound(to: Element?.self)
            let copy = UnsafeMutablePointer<Element?>.allocate(capacity: count)
            for index in 0..<count { (copy + index).initialize(to: slots[index]) }
            return UnsafeMutableRawPointer(copy)
        }
    }

    private init(base: UnsafeMutableRawPointer, like other: SlotBuffer) {
        self.base = base
        self.count = other.count
        self.destroy = other.destroy
        self.duplicate = other.duplicate
    }

    /// A new buffer holding copies of these slots.
    func copy() -> SlotBuffer { SlotBuffer(base: duplicate(base, count), like: self) }

    deinit { destroy(base, count) }
}
