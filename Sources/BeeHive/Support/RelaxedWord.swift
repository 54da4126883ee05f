internal import _BeeHiveAtomics

/// A number read and changed from any thread without a lock, ordering nothing else (relaxed atomics): a flag, or a
/// counter that hands out unique numbers.
///
/// C11 atomics from `bh_atomics.h`, not the standard library's `Atomic`: importing `Synchronization` puts its library
/// among every program's own, which costs each launch (Docs/Design.md, "No Synchronization library in the core").
final class RelaxedWord: @unchecked Sendable {
    private let word = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)

    init(_ value: UInt64 = 0) { word.initialize(to: value) }

    deinit { word.deallocate() }

    /// The value now.
    var value: UInt64 { bh_word_load(word) }

    /// Sets the value.
    func store(_ value: UInt64) { bh_word_store(word, value) }

    /// Adds 1, and returns the value before.
    func next() -> UInt64 { bh_word_next(word) }
}
