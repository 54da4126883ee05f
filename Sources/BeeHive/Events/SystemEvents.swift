import Dispatch
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Linux signals and memory pressure, delivered to modules as BeeHive's system events.
///
/// | Linux                                              | event                                      |
/// |----------------------------------------------------|--------------------------------------------|
/// | SIGTERM, SIGINT                                    | ``ModuleEvent/willTerminate``, then ``ModuleEvent/tearDown``, then `onTerminate` |
/// | SIGHUP                                             | ``ModuleEvent/reload``                     |
/// | `/proc/pressure/memory` or the cgroup's `memory.pressure` trigger | ``ModuleEvent/didReceiveMemoryWarning`` |
///
/// Keep the value alive as long as the handlers should stay installed; ``cancel()`` restores the
/// signals' default actions.
public final class SystemEventHandlers: Sendable {
    private let sources: LockedValue<[any DispatchSourceSignal]>
    private let signals: [Int32]
    private let pressure: MemoryPressureMonitor?

    /// Where memory pressure is read from, or nil when no pressure interface was usable.
    public var memoryPressureSource: String? { pressure?.path }

    init(sources: [any DispatchSourceSignal], signals: [Int32], pressure: MemoryPressureMonitor?) {
        self.sources = LockedValue(sources)
        self.signals = signals
        self.pressure = pressure
    }

    /// Removes the handlers.
    public func cancel() {
        let sources = self.sources.withLock { s -> [any DispatchSourceSignal] in
            defer { s.removeAll() }
            return s
        }
        for source in sources { source.cancel() }
        for signal in signals { _ = Glibc.signal(signal, SIG_DFL) }
        pressure?.stop()
    }
}

extension ModuleManager {
    /// Delivers SIGTERM/SIGINT, SIGHUP and memory pressure to modules (see ``SystemEventHandlers``).
    ///
    /// Use this when the program does not run under swift-service-lifecycle; under a `ServiceGroup`,
    /// the BeeHiveServiceLifecycle product's `ModuleLifecycleService` handles termination instead.
    ///
    /// ```swift
    /// let handlers = manager.installSystemEventHandlers()
    /// dispatchMain()
    /// ```
    /// - Parameters:
    ///   - signals: Whether to handle SIGTERM, SIGINT and SIGHUP.
    ///   - memoryPressure: Whether to watch memory pressure, where the kernel offers it.
    ///   - onTerminate: Called with the signal after tearDown; by default exits with status 0.
    /// - Returns: The installed handlers; keep them alive.
    public func installSystemEventHandlers(
        signals: Bool = true, memoryPressure: Bool = true,
        onTerminate: @escaping @Sendable (Int32) -> Void = { _ in exit(0) }
    ) -> SystemEventHandlers {
        var sources: [any DispatchSourceSignal] = []
        var installed: [Int32] = []
        if signals {
            let queue = DispatchQueue(label: "BeeHive.signals")
            for signal in [SIGTERM, SIGINT, SIGHUP] {
                _ = Glibc.signal(signal, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
                source.setEventHandler { [self] in
                    let parameters: [String: any Sendable] = ["signal": Int(signal)]
                    if signal == SIGHUP {
                        trigger(.reload, parameters: parameters)
                    } else {
                        terminate(parameters: parameters)
                        onTerminate(signal)
                    }
                }
                source.resume()
                sources.append(source)
                installed.append(signal)
            }
        }
        var monitor: MemoryPressureMonitor?
        if memoryPressure {
            monitor = MemoryPressureMonitor.start(logger: hive.options.logger) { [self] path in
                trigger(.didReceiveMemoryWarning, parameters: ["source": path])
            }
        }
        return SystemEventHandlers(sources: sources, signals: installed, pressure: monitor)
    }
}

/// Waits for Linux pressure-stall triggers on memory (PSI), on a thread of its own.
final class MemoryPressureMonitor: Sendable {
    let path: String
    private let fd: Int32
    private let wake: (read: Int32, write: Int32)

    private init(path: String, fd: Int32, wake: (Int32, Int32)) {
        self.path = path
        self.fd = fd
        self.wake = wake
    }

    /// The trigger: a stall of 100 ms within any 1 s window.
    static let trigger = "some 100000 1000000"

    /// Opens the first usable pressure file and starts waiting; nil (logged at debug) when none is usable.
    static func start(logger: Logger, onPressure: @escaping @Sendable (String) -> Void) -> MemoryPressureMonitor? {
        var candidates = ["/proc/pressure/memory"]
        if let cgroup = cgroupPressurePath() { candidates.append(cgroup) }
        var reasons: [String] = []
        for path in candidates {
            let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else {
                reasons.append("\(path): \(String(cString: strerror(errno)))")
                continue
            }
            let written = trigger.withCString { write(fd, $0, strlen($0) + 1) }
            guard written >= 0 else {
                reasons.append("\(path): \(String(cString: strerror(errno)))")
                close(fd)
                continue
            }
            var pipeFDs: [Int32] = [0, 0]
            guard pipe(&pipeFDs) == 0 else {
                close(fd)
                return nil
            }
            let monitor = MemoryPressureMonitor(path: path, fd: fd, wake: (pipeFDs[0], pipeFDs[1]))
            DispatchQueue(label: "BeeHive.memory-pressure").async { monitor.run(onPressure) }
            return monitor
        }
        logger.debug("memory pressure events unavailable: \(reasons.joined(separator: "; "))")
        return nil
    }

    private func run(_ onPressure: @Sendable (String) -> Void) {
        var fds = [
            pollfd(fd: fd, events: Int16(POLLPRI), revents: 0),
            pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let n = poll(&fds, 2, -1)
            if n < 0 && errno == EINTR { continue }
            if n < 0 || fds[1].revents != 0 || fds[0].revents & Int16(POLLERR) != 0 { break }
            if fds[0].revents & Int16(POLLPRI) != 0 { onPressure(path) }
        }
        close(fd)
        close(wake.read)
    }

    func stop() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        close(wake.write)
    }

    /// `/sys/fs/cgroup/<path>/memory.pressure` for this process's cgroup (v2), if it exists.
    static func cgroupPressurePath() -> String? {
        guard let file = fopen("/proc/self/cgroup", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            var line = String(cString: buffer)
            while line.last?.isNewline == true { line.removeLast() }
            guard line.hasPrefix("0::") else { continue }
            let path = "/sys/fs/cgroup" + line.dropFirst(3) + "/memory.pressure"
            return access(path, F_OK) == 0 ? path : nil
        }
        return nil
    }
}
