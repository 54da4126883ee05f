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

/// What a startup program does, from its first argument (default `register`).
public enum StartupMode: String, CaseIterable, Sendable {
    /// Exit before registering anything: the baseline of the instruction counts (same binary, same loading).
    case none
    /// Build the registry (spawn → registered).
    case register
    /// Build the registry, then resolve every service once by type (spawn → every service resolved once).
    case type
    /// Build the registry, then resolve every service once by name.
    case name
    /// Build the registry, then check that every service resolves, by type and by name, to an instance of its
    /// implementation type; exit 1 naming those that do not.
    case verify

    /// Whether the Swinject programs register in Swinject's default `.graph` scope (`BEEHIVE_SWINJECT_SCOPE=graph`)
    /// instead of `.container`: an extra row, not like for like with singletons.
    public static let swinjectGraphScope: Bool =
        getenv("BEEHIVE_SWINJECT_SCOPE").map { String(cString: $0) == "graph" } ?? false

    /// The mode named by the first argument; a program given anything else prints its usage and exits 2.
    public static let current: StartupMode = {
        let arguments = CommandLine.arguments
        guard arguments.count > 1 else { return .register }
        guard arguments.count == 2, let mode = StartupMode(rawValue: arguments[1]) else {
            let modes = allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: \(arguments[0]) [\(modes)]\n".utf8))
            exit(2)
        }
        return mode
    }()
}

/// What a startup program prints for `Tools/startup.py` and `Tools/firstuse.py`, and how it fails.
public enum StartupReport {
    /// Whether the programs count what they registered after the measured part. The instruction counts turn it off
    /// (`BEEHIVE_STARTUP_UNCHECKED=1`): counting builds an array of N registrations, which would be counted as
    /// registration. Every other run checks.
    static let checks: Bool = getenv("BEEHIVE_STARTUP_UNCHECKED").map { String(cString: $0) != "1" } ?? true

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
        finish(
            mechanism: mechanism, mode: .register, expected: expected, startNanoseconds: readyNanoseconds,
            registeredNanoseconds: readyNanoseconds, readyNanoseconds: readyNanoseconds, registered: registered,
            misresolved: [])
    }

    /// Prints `ready_ns=<t> registered_ns=<t> main_ns=<t> registered=<count> mechanism=<name> mode=<mode>` and exits
    /// 0; or fails when fewer than `expected` services were registered, or when some resolved wrong.
    ///
    /// Written after `readyNanoseconds` was taken, so the counting and printing are not part of the measured time.
    /// - Parameters:
    ///   - mechanism: The mechanism's name, echoed for the driver to check.
    ///   - mode: What the program did.
    ///   - expected: The number of services the program must have registered.
    ///   - startNanoseconds: `StartupClock.now()` when `main` began.
    ///   - registeredNanoseconds: `StartupClock.now()` when the registry was built.
    ///   - readyNanoseconds: `StartupClock.now()` when first use was done (the registry was built, for `register`).
    ///   - registered: The number of services registered (or resolved, for Swinject); evaluated only when checking.
    ///   - misresolved: The services that did not resolve to their implementation (mode `verify`).
    public static func finish(
        mechanism: String, mode: StartupMode, expected: Int, startNanoseconds: UInt64, registeredNanoseconds: UInt64,
        readyNanoseconds: UInt64, registered: @autoclosure () -> Int, misresolved: [String]
    ) -> Never {
        var count = -1
        if checks {
            count = registered()
            guard count >= expected else {
                fail("\(mechanism) registered \(count) services; expected \(expected)")
            }
        }
        guard misresolved.isEmpty else {
            fail(
                "\(mechanism): \(misresolved.count) services did not resolve to their implementation: "
                    + misresolved.prefix(10).joined(separator: "; "))
        }
        // Foundation is linked into every startup program (the targets are Foundation-linked processes);
        // ProcessInfo is touched here, after the measured part, so the linker keeps the dependency.
        let pid = ProcessInfo.processInfo.processIdentifier
        print(
            "ready_ns=\(readyNanoseconds) registered_ns=\(registeredNanoseconds) main_ns=\(startNanoseconds) "
                + "registered=\(count) mechanism=\(mechanism) mode=\(mode.rawValue) pid=\(pid)")
        exit(0)
    }

    /// Mode `none`: prints the same line as ``finish(mechanism:mode:expected:startNanoseconds:registeredNanoseconds:readyNanoseconds:registered:misresolved:)``
    /// with nothing registered, through the same code, and exits 0.
    /// - Parameters:
    ///   - mechanism: The mechanism's name.
    ///   - startNanoseconds: `StartupClock.now()` when `main` began.
    public static func finishBeforeRegistering(mechanism: String, startNanoseconds: UInt64) -> Never {
        finish(
            mechanism: mechanism, mode: .none, expected: 0, startNanoseconds: startNanoseconds,
            registeredNanoseconds: startNanoseconds, readyNanoseconds: startNanoseconds, registered: 0, misresolved: [])
    }

    /// Prints `error: <message>` to standard error and exits 1.
    /// - Parameter message: What went wrong.
    public static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        exit(1)
    }
}
