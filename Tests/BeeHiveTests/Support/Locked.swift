import Foundation

/// A value behind an `NSLock` (a pthread mutex, which ThreadSanitizer sees; `Synchronization.Mutex`'s
/// futex-based lock is invisible to it on Linux and gives false reports).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
