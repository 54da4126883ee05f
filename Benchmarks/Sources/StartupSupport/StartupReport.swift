import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The clock the startup driver and the startup programs share: `CLOCK_MONOTONIC`, in nanoseconds.
public enum StartupClock {
    /// The current `CLOCK_MONOTONIC` time in nanoseconds.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// What a startup program prints for `Tools/startup.py`, and how it fails.
public enum StartupReport {
    /// Prints `ready_ns=<t> registered=<count> mechanism=<name>` and exits 0, or fails when fewer than
    /// `expected` services were registered.
    ///
    /// The line is written after the registry was built and after `readyNanoseconds` was taken, so the
    /// counting and printing are not part of the measured time.
    /// - Parameters:
    ///   - mechanism: The mechanism's name, echoed for the driver to check.
    ///   - expected: The number of services the program must have registered.
    ///   - readyNanoseconds: `StartupClock.now()` taken when the registry was ready.
    ///   - registered: The number of services registered (or resolved, for Swinject).
    public static func finish(mechanism: String, expected: Int, readyNanoseconds: UInt64, registered: Int) -> Never {
        guard registered >= expected else {
            fail("\(mechanism) registered \(registered) services; expected \(expected)")
        }
        // Foundation is linked into every startup program (the targets are Foundation-linked processes);
        // ProcessInfo is touched here, after the measured part, so the linker keeps the dependency.
        let pid = ProcessInfo.processInfo.processIdentifier
        print("ready_ns=\(readyNanoseconds) registered=\(registered) mechanism=\(mechanism) pid=\(pid)")
        exit(0)
    }

    /// Prints `error: <message>` to standard error and exits 1.
    /// - Parameter message: What went wrong.
    public static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        exit(1)
    }
}
