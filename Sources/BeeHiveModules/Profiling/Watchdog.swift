import BeeHive
import Dispatch
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Watches a dispatch queue and reports when it stays blocked longer than a threshold: BeeHive's `BHWatchDog`.
///
/// Every `threshold` it posts a ping to the queue from a thread of its own. If the previous ping has
/// not run by then, the queue is blocked: the watchdog logs it through swift-log (once per blocked
/// period, with how long), calls `onBlocked`, and in strict mode traps so that a crash report shows
/// the blocked thread.
///
/// ```swift
/// let watchdog = Watchdog(queue: .main, threshold: .milliseconds(500))
/// watchdog.start()
/// ```
public final class Watchdog: Sendable {
    private struct State {
        var pingSentAt: UInt64?
        var reported = false
        var timer: (any DispatchSourceTimer)?
    }

    private let queue: DispatchQueue
    private let threshold: DispatchTimeInterval
    private let thresholdNanoseconds: UInt64
    private let isStrict: Bool
    private let logger: Logger
    private let onBlocked: (@Sendable (_ blockedNanoseconds: UInt64) -> Void)?
    /// The monotonic clock, in nanoseconds: the system's uptime clock, or a test's.
    private let now: @Sendable () -> UInt64
    private let state = LockedValue(State())
    private let timerQueue = DispatchQueue(label: "BeeHive.watchdog")

    /// Creates a watchdog; call ``start()``.
    /// - Parameters:
    ///   - queue: The queue to watch (the main queue by default).
    ///   - threshold: How long the queue may be blocked before it is reported.
    ///   - isStrict: Trap when the queue is blocked, instead of only reporting.
    ///   - logger: Where reports go.
    ///   - onBlocked: Called (on the watchdog's thread) with how long the queue has been blocked.
    public convenience init(
        queue: DispatchQueue = .main, threshold: DispatchTimeInterval = .seconds(1), isStrict: Bool = false,
        logger: Logger = Logger(label: "BeeHive.Watchdog"),
        onBlocked: (@Sendable (_ blockedNanoseconds: UInt64) -> Void)? = nil
    ) {
        self.init(
            queue: queue, threshold: threshold, isStrict: isStrict, logger: logger,
            now: { DispatchTime.now().uptimeNanoseconds }, onBlocked: onBlocked)
    }

    /// Creates a watchdog that reads the time from `now`: tests drive it with a clock of their own and
    /// ``check()``, without ``start()`` and without waiting for real time to pass.
    /// The other parameters are those of ``init(queue:threshold:isStrict:logger:onBlocked:)``.
    /// - Parameter now: A monotonic clock, in nanoseconds.
    package init(
        queue: DispatchQueue, threshold: DispatchTimeInterval, isStrict: Bool = false,
        logger: Logger = Logger(label: "BeeHive.Watchdog"), now: @escaping @Sendable () -> UInt64,
        onBlocked: (@Sendable (_ blockedNanoseconds: UInt64) -> Void)? = nil
    ) {
        self.queue = queue
        self.threshold = threshold
        self.thresholdNanoseconds = Self.nanoseconds(threshold)
        self.isStrict = isStrict
        self.logger = logger
        self.now = now
        self.onBlocked = onBlocked
    }

    deinit { stop() }

    /// Starts watching; does nothing if already started.
    public func start() {
        let timer = DispatchSource.makeTimerSource(queue: timerQueue)
        let started = state.withLock { state -> Bool in
            guard state.timer == nil else { return false }
            state.timer = timer
            return true
        }
        guard started else { return }
        timer.schedule(deadline: .now() + threshold, repeating: threshold)
        timer.setEventHandler { [weak self] in self?.check() }
        timer.resume()
    }

    /// Stops watching.
    public func stop() {
        let timer = state.withLock { state -> (any DispatchSourceTimer)? in
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    /// One look at the queue (the timer calls it every `threshold`): posts a ping when the last one has run, and
    /// reports, once per blocked period, a ping that has waited `threshold` or longer.
    package func check() {
        let now = self.now()
        enum Action { case ping, report(UInt64), wait }
        let action: Action = state.withLock { state in
            guard let sent = state.pingSentAt else {
                state.pingSentAt = now
                state.reported = false
                return .ping
            }
            let blocked = now - sent
            guard blocked >= thresholdNanoseconds, !state.reported else { return .wait }
            state.reported = true
            return .report(blocked)
        }
        switch action {
        case .ping:
            queue.async { [weak self] in self?.state.withLock { $0.pingSentAt = nil } }
        case .report(let blocked):
            let millis = blocked / 1_000_000
            let message =
                "expected the watched queue to run a ping within \(thresholdNanoseconds / 1_000_000) ms; it has been blocked for \(millis) ms"
            logger.error("\(message)", metadata: ["code": "\(HiveError.Code.blockedQueue)"])
            onBlocked?(blocked)
            if isStrict { fatalError("BeeHive watchdog: \(message)") }
        case .wait:
            break
        }
    }

    private static func nanoseconds(_ interval: DispatchTimeInterval) -> UInt64 {
        switch interval {
        case .seconds(let s): UInt64(max(0, s)) * 1_000_000_000
        case .milliseconds(let ms): UInt64(max(0, ms)) * 1_000_000
        case .microseconds(let us): UInt64(max(0, us)) * 1_000
        case .nanoseconds(let ns): UInt64(max(0, ns))
        default: 1_000_000_000
        }
    }
}
