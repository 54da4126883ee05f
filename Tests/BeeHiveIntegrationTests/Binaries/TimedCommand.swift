import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs a program in a child process with a time limit, so that a crash or a hang of the program is a result a
/// test can check (not a dead test runner).
enum TimedCommand {
    /// The time limit of a child process: a hang guard, not a deadline. The programs finish in well under a second;
    /// a healthy run on a loaded 2-core machine never comes near it, so only a real hang reaches it.
    static let hangGuard: Double = 300

    /// How a run ended.
    enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// The program exited with this status.
        case exited(Int32)
        /// The program was killed by this signal (SIGSEGV, SIGBUS, …).
        case signaled(Int32)
        /// The program was still running at the time limit and was killed.
        case timedOut(seconds: Double)

        var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signaled(let signal): "killed by signal \(signal) (\(String(cString: strsignal(signal))))"
            case .timedOut(let seconds): "still running after \(seconds) s (a hang), killed"
            }
        }
    }

    /// What a run printed and how it ended.
    struct Outcome: Sendable {
        let termination: Termination
        let standardOutput: String
        let standardError: String

        /// Whether the program exited with status 0.
        var succeeded: Bool { termination == .exited(0) }
    }

    /// Runs `executable` (a path) with `arguments`; kills it with SIGKILL after `timeout` seconds.
    static func run(
        _ executable: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
        timeout: Double
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()

        // Both pipes are read to the end on threads of their own, so that a chatty child never blocks.
        let reading = DispatchGroup()
        nonisolated(unsafe) var outputData = Data()
        nonisolated(unsafe) var errorData = Data()
        reading.enter()
        DispatchQueue.global().async {
            outputData = output.fileHandleForReading.readDataToEndOfFile()
            reading.leave()
        }
        reading.enter()
        DispatchQueue.global().async {
            errorData = errors.fileHandleForReading.readDataToEndOfFile()
            reading.leave()
        }

        var timedOut = false
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        reading.wait()
        let termination: Termination =
            timedOut
            ? .timedOut(seconds: timeout)
            : process.terminationReason == .uncaughtSignal
                ? .signaled(process.terminationStatus) : .exited(process.terminationStatus)
        return Outcome(
            termination: termination, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}
