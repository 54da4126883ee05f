#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A condition a thread waits for while another one calls accessors (no lock is held while they run).
final class BindSignal: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var generation = 0

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    /// Waits until `done` holds, checking it again after every signal.
    func wait(until done: () -> Bool) {
        pthread_mutex_lock(mutex)
        let seen = generation
        pthread_mutex_unlock(mutex)
        if done() { return }
        pthread_mutex_lock(mutex)
        while generation == seen { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    func signal() {
        pthread_mutex_lock(mutex)
        generation &+= 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
