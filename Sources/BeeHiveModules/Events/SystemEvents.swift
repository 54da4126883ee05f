import BeeHive
import Dispatch
import Logging
internal import _BeeHiveSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Linux signals and memory pressure, delivered to modules as BeeHive's system events.
///
/// | Linux                                              | event                                      |
/// |----------------------------------------------------|--------------------------------------------|
/// | SIGTERM, SIGINT                                    | ``ModuleEvent/willTerminate`` (``HiveModule/modWillTerminate(_:)``), then ``ModuleEvent/tearDown``, then `onTerminate` |
/// | SIGHUP                                             | ``ModuleEvent/reload`` (``HiveModule/modReload(_:)``) |
/// | `/proc/pressure/memory` or the cgroup's `memory.pressure` trigger | ``ModuleEvent/didReceiveMemoryWarning`` (``HiveModule/modDidReceiveMemoryWarning(_:)``) |
///
/// Signals are caught from the moment ``ModuleManager/installSystemEventHandlers(signals:memoryPressure:onTerminate:)``
/// returns: a signal handler (`sigaction`, with `SA_RESTART`) writes each signal to a pipe, and a dispatch queue reads
/// the pipe and starts a task per signal that delivers its event (after the previous signal's), so a signal that
/// arrives before the queue first looks is delivered, not lost.
/// The signals are also unblocked in the installing thread: a process started with them blocked (the signal mask is
/// inherited from the parent) would otherwise never take them. A system call that a signal interrupts restarts
/// (`SA_RESTART`), except those Linux never restarts (`poll`, `nanosleep`, …), which fail with `EINTR` as they do under
/// any signal handler.
///
/// Keep the value alive as long as the handlers should stay installed; ``cancel()`` (or releasing the value)
/// gives the signals back the actions they had before.
public final class SystemEventHandlers: Sendable {
    private let catcher: SignalCatcher?
    private let pressure: MemoryPressureMonitor?

    /// Where memory pressure is read from, or nil when no pressure interface was usable.
    public var memoryPressureSource: String? { pressure?.path }

    /// The signals caught now: SIGTERM, SIGINT and SIGHUP, or none when they were not asked for, could not be
    /// caught (the reason is logged) or ``cancel()`` was called.
    public var handledSignals: [Int32] {
        guard let catcher, catcher.isInstalled else { return [] }
        return catcher.signals
    }

    init(catcher: SignalCatcher?, pressure: MemoryPressureMonitor?) {
        self.catcher = catcher
        self.pressure = pressure
    }

    /// Removes the handlers: the signals get back their previous actions, memory pressure is no longer watched.
    ///
    /// Signals that arrived but were not delivered yet are dropped. Calling it again does nothing.
    public func cancel() {
        catcher?.cancel()
        pressure?.stop()
    }
}

extension ModuleManager {
    /// Delivers SIGTERM/SIGINT, SIGHUP and memory pressure to modules (see ``SystemEventHandlers``).
    ///
    /// Use this when the program does not run under swift-service-lifecycle; under a `ServiceGroup`,
    /// the BeeHiveServiceLifecycle product's `ModuleLifecycleService` handles termination instead.
    /// A signal that arrives at any moment after this returns is delivered, even one the program sends itself
    /// at once, or one that arrives while ``start(parameters:)`` runs (it is delivered once start has returned).
    ///
    /// Signals and pressure reports arrive on dispatch queues; for each one a task is started there that awaits
    /// the previous one's, so that they reach the modules in the order they came:
    ///
    /// - SIGTERM, SIGINT: `await` ``terminate(parameters:)`` (willTerminate, then tearDown in reverse order), then
    ///   `onTerminate(signal)`.
    /// - SIGHUP: `try await` ``trigger(_:parameters:)`` with ``ModuleEvent/reload``.
    /// - Memory pressure: `try await` ``trigger(_:parameters:)`` with ``ModuleEvent/didReceiveMemoryWarning``.
    ///
    /// The parameters carry `"signal"` (the signal's number) or `"source"` (the pressure file).
    ///
    /// ```swift
    /// let handlers = manager.installSystemEventHandlers()
    /// await manager.start()
    /// while true { try await Task.sleep(for: .seconds(3600)) }   // SIGTERM ends the process (onTerminate)
    /// ```
    /// - Parameters:
    ///   - signals: Whether to handle SIGTERM, SIGINT and SIGHUP.
    ///   - memoryPressure: Whether to watch memory pressure, where the kernel offers it.
    ///   - onTerminate: Called with the signal once ``terminate(parameters:)`` has finished. The default exits the
    ///     process with status 0 (`exit(0)`: `atexit` handlers run, other threads and tasks are not waited for);
    ///     pass your own to exit otherwise or to keep running.
    /// - Returns: The installed handlers; keep them alive.
    public func installSystemEventHandlers(
        signals: Bool = true, memoryPressure: Bool = true,
        onTerminate: @escaping @Sendable (Int32) -> Void = { _ in exit(0) }
    ) -> SystemEventHandlers {
        let queue = DeliveryQueue()
        var catcher: SignalCatcher?
        if signals {
            do {
                catcher = try SignalCatcher(signals: [SIGTERM, SIGINT, SIGHUP]) { [self] signal in
                    let parameters: [String: any Sendable] = ["signal": Int(signal)]
                    queue.enqueue { [self] in
                        if signal == SIGHUP {
                            try? await trigger(.reload, parameters: parameters)
                        } else {
                            await terminate(parameters: parameters)
                            onTerminate(signal)
                        }
                    }
                }
            } catch {
                hive.options.logger.error(
                    "expected to catch SIGTERM, SIGINT and SIGHUP; \(error). The signals keep their previous actions")
            }
        }
        var monitor: MemoryPressureMonitor?
        if memoryPressure {
            monitor = MemoryPressureMonitor.start(logger: hive.options.logger) { [self] path in
                queue.enqueue { [self] in try? await trigger(.didReceiveMemoryWarning, parameters: ["source": path]) }
            }
        }
        return SystemEventHandlers(catcher: catcher, pressure: monitor)
    }
}

/// Runs the deliveries of system events one after the other, in the order they were enqueued: each is a task,
/// started on the dispatch queue the event arrived on, that first awaits the task before it.
final class DeliveryQueue: Sendable {
    private let last = LockedValue<Task<Void, Never>?>(nil)

    /// Starts a task that runs `delivery` once every delivery enqueued before it has finished.
    func enqueue(_ delivery: @escaping @Sendable () async -> Void) {
        last.withLock { last in
            let previous = last
            last = Task {
                await previous?.value
                await delivery()
            }
        }
    }
}

/// Catches signals through the C helper's self-pipe and calls a handler for each, on a queue of its own.
///
/// `@unchecked Sendable`: the C catcher is only touched through `bh_signal_catcher_uninstall` (thread-safe,
/// idempotent) and, once, `bh_signal_catcher_free` in the read source's cancel handler, after which the source
/// never runs again; `isInstalled` is behind a lock.
final class SignalCatcher: @unchecked Sendable {
    /// Why the signals could not be caught.
    struct InstallationFailure: Error, CustomStringConvertible {
        let errorNumber: Int32
        var description: String {
            "installing the handlers failed: \(String(cString: strerror(errorNumber))) (errno \(errorNumber))"
        }
    }

    let signals: [Int32]
    private let catcher: OpaquePointer
    private let source: any DispatchSourceRead
    private let installed = LockedValue(true)

    var isInstalled: Bool { installed.withLock { $0 } }

    /// Catches `signals` before it returns; `handler` runs on a serial queue, once per delivery, in order.
    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) throws(InstallationFailure) {
        guard let catcher = signals.withUnsafeBufferPointer({ bh_signal_catcher_install($0.baseAddress, $0.count) })
        else { throw InstallationFailure(errorNumber: errno) }
        self.signals = signals
        self.catcher = catcher
        let fd = bh_signal_catcher_fd(catcher)
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "BeeHive.signals"))
        let pointer = UncheckedPointer(catcher)
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 64)
            while true {
                let count = read(fd, &bytes, bytes.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                for byte in bytes.prefix(count) { handler(Int32(byte)) }
            }
        }
        source.setCancelHandler { bh_signal_catcher_free(pointer.value) }
        self.source = source
        source.resume()
    }

    /// Stops catching (the previous actions come back) and stops the reader; safe to call more than once.
    func cancel() {
        installed.withLock { $0 = false }
        bh_signal_catcher_uninstall(catcher)
        source.cancel()
    }

    deinit { cancel() }
}

/// The C catcher, handed to the read source's cancel handler. `@unchecked Sendable`: used there once, after the
/// catcher was uninstalled and the source stopped reading.
private struct UncheckedPointer: @unchecked Sendable {
    let value: OpaquePointer
    init(_ value: OpaquePointer) { self.value = value }
}

/// Waits for Linux pressure-stall triggers on memory (PSI), on a thread of its own.
final class MemoryPressureMonitor: Sendable {
    let path: String
    private let fd: Int32
    private let wakeRead: Int32
    /// The write end of the wake pipe, until ``stop()`` closes it.
    private let wakeWrite: LockedValue<Int32?>

    private init(path: String, fd: Int32, wake: (read: Int32, write: Int32)) {
        self.path = path
        self.fd = fd
        self.wakeRead = wake.read
        self.wakeWrite = LockedValue(wake.write)
    }

    /// The triggers, in order of preference: a stall of 100 ms within any 1 s window; where the process may not
    /// use that (without CAP_SYS_RESOURCE, the kernel accepts only windows of a multiple of 2 s), 200 ms within 2 s.
    static let triggers = ["some 100000 1000000", "some 200000 2000000"]

    /// Opens the first usable pressure file and starts waiting; nil (logged at debug) when none is usable.
    static func start(logger: Logger, onPressure: @escaping @Sendable (String) -> Void) -> MemoryPressureMonitor? {
        var candidates = ["/proc/pressure/memory"]
        if let cgroup = cgroupPressurePath() { candidates.append(cgroup) }
        var reasons: [String] = []
        for path in candidates {
            let fd: Int32
            switch openTrigger(path) {
            case .success(let opened): fd = opened
            case .failure(let reason):
                reasons.append("\(path): \(reason)")
                continue
            }
            var pipeFDs: [Int32] = [0, 0]
            guard bh_pipe_cloexec(&pipeFDs) == 0 else {
                reasons.append("\(path): no pipe: \(String(cString: strerror(errno)))")
                close(fd)
                break
            }
            let monitor = MemoryPressureMonitor(path: path, fd: fd, wake: (pipeFDs[0], pipeFDs[1]))
            DispatchQueue(label: "BeeHive.memory-pressure").async { monitor.run(onPressure) }
            return monitor
        }
        logger.debug("memory pressure events unavailable: \(reasons.joined(separator: "; "))")
        return nil
    }

    private struct OpenFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Opens `path` and sets the first trigger the kernel accepts.
    private static func openTrigger(_ path: String) -> Result<Int32, OpenFailure> {
        var refusals: [String] = []
        for trigger in triggers {
            let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return .failure(OpenFailure(description: String(cString: strerror(errno)))) }
            if trigger.withCString({ write(fd, $0, strlen($0) + 1) }) >= 0 { return .success(fd) }
            refusals.append("\"\(trigger)\": \(String(cString: strerror(errno)))")
            close(fd)
        }
        return .failure(OpenFailure(description: "triggers refused: \(refusals.joined(separator: ", "))"))
    }

    private func run(_ onPressure: @Sendable (String) -> Void) {
        var fds = [
            pollfd(fd: fd, events: Int16(POLLPRI), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let n = poll(&fds, 2, -1)
            if n < 0 && errno == EINTR { continue }
            if n < 0 || fds[1].revents != 0 || fds[0].revents & Int16(POLLERR) != 0 { break }
            if fds[0].revents & Int16(POLLPRI) != 0 { onPressure(path) }
        }
        close(fd)
        close(wakeRead)
    }

    /// Wakes the waiting thread, which then closes its descriptors; calling it again does nothing.
    func stop() {
        guard let write = wakeWrite.withLock({ $0.take() }) else { return }
        // Closing the write end wakes the reader (POLLHUP) even if the pipe were full.
        close(write)
    }

    /// `/sys/fs/cgroup/<path>/memory.pressure` for this process's cgroup (v2), if it exists.
    static func cgroupPressurePath() -> String? {
        guard let file = fopen("/proc/self/cgroup", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            var line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            while line.last?.isNewline == true { line.removeLast() }
            guard line.hasPrefix("0::") else { continue }
            let path = "/sys/fs/cgroup" + line.dropFirst(3) + "/memory.pressure"
            return access(path, F_OK) == 0 ? path : nil
        }
        return nil
    }
}
