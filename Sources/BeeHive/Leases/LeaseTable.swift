#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The open leases on plugins' services, by the plugin's image, and the images being drained: a retire or an upgrade
/// waits until the leases of the plugin it withdraws end. Owns a pthread mutex and a condition (as
/// ``CreationTicket`` does): a drain blocks until another thread ends its lease, which `LockedValue` cannot express.
final class LeaseTable: @unchecked Sendable {
    /// An open lease.
    struct Lease {
        let image: UInt64
        let id: Int
    }

    /// What ``acquire(image:holder:waits:)`` found.
    enum Outcome {
        case leased(Lease)
        /// The image's registrations were withdrawn: look the service up again.
        case withdrawn
        /// The image is being drained and the caller does not wait.
        case draining
    }

    private let sync = UnsafeMutablePointer<(mutex: pthread_mutex_t, condition: pthread_cond_t)>.allocate(capacity: 1)
    /// Guarded by the mutex.
    private var holders: [UInt64: [Int: String]] = [:]
    private var draining: Set<UInt64> = []
    private var withdrawn: Set<UInt64> = []
    private var next = 0

    init() {
        sync.initialize(to: (pthread_mutex_t(), pthread_cond_t()))
        pthread_mutex_init(&sync.pointee.mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&sync.pointee.condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(&sync.pointee.condition)
        pthread_mutex_destroy(&sync.pointee.mutex)
        sync.deallocate()
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(&sync.pointee.mutex)
        defer { pthread_mutex_unlock(&sync.pointee.mutex) }
        return body()
    }

    /// Opens a lease on the image `image` for `holder` (`file:line`). While the image is drained, waits until the
    /// drain ends when `waits`, else answers `.draining`.
    func acquire(image: UInt64, holder: String, waits: Bool) -> Outcome {
        locked {
            while draining.contains(image) {
                guard waits else { return .draining }
                pthread_cond_wait(&sync.pointee.condition, &sync.pointee.mutex)
            }
            if withdrawn.contains(image) { return .withdrawn }
            next += 1
            holders[image, default: [:]][next] = holder
            return .leased(Lease(image: image, id: next))
        }
    }

    /// Ends a lease.
    func release(_ lease: Lease) {
        locked {
            holders[lease.image]?[lease.id] = nil
            if holders[lease.image]?.isEmpty == true { holders[lease.image] = nil }
            pthread_cond_broadcast(&sync.pointee.condition)
        }
    }

    /// Starts draining `image` and waits until its leases end, or `timeout` passes. New leases wait meanwhile.
    /// - Returns: nil when no lease is open (the image stays drained until ``endDrain(_:withdrawn:)``); else the
    ///   holders of the open leases, and the drain is over.
    func drain(_ image: UInt64, timeout: Duration) -> [String]? {
        let (seconds, attoseconds) = timeout.components
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return locked {
            draining.insert(image)
            while let open = holders[image], !open.isEmpty {
                if pthread_cond_timedwait(&sync.pointee.condition, &sync.pointee.mutex, &deadline) == ETIMEDOUT,
                    let still = holders[image], !still.isEmpty
                {
                    draining.remove(image)
                    pthread_cond_broadcast(&sync.pointee.condition)
                    return still.sorted { $0.key < $1.key }.map(\.value)
                }
            }
            return nil
        }
    }

    /// Ends the drain of `image`; when its registrations were `withdrawn`, leases asked for it from now on are
    /// answered `.withdrawn`.
    func endDrain(_ image: UInt64, withdrawn isWithdrawn: Bool) {
        locked {
            draining.remove(image)
            if isWithdrawn { withdrawn.insert(image) }
            pthread_cond_broadcast(&sync.pointee.condition)
        }
    }
}
