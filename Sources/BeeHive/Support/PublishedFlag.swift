internal import _BeeHiveAtomics

/// A flag set on one thread and read on others without a lock: setting it releases what the setter wrote before, and
/// reading it set acquires that (C11 atomics from `bh_atomics.h`, for the reason ``RelaxedWord`` gives).
final class PublishedFlag: @unchecked Sendable {
    private let word = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)

    init() { word.initialize(to: 0) }

    deinit { word.deallocate() }

    /// Whether the flag is set now (acquiring).
    var isSet: Bool { bh_word_acquire(word) != 0 }

    /// Sets or clears the flag (releasing).
    func set(_ value: Bool) { bh_word_release(word, value ? 1 : 0) }
}
