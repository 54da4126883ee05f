import BeeHiveTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// LifecycleApp (Tests/Fixtures/Sources/LifecycleApp) in child processes: three modules, driven by Linux signals.
@Suite("Real binaries: modules and Linux signals in a child process", .serialized)
struct SignalTests {
    /// The LifecycleApp executable, built with the fixture package (debug). The environment variable LIFECYCLEAPP may
    /// name another build of it (for example one built against an older BeeHive, to see these tests fail there).
    static func lifecycleApp() throws -> String {
        if let given = ProcessInfo.processInfo.environment["LIFECYCLEAPP"], !given.isEmpty { return given }
        return try FixturePackage.products("debug").appendingPathComponent("LifecycleApp").path
    }

    /// What LifecycleApp prints from the moment a SIGTERM reaches it.
    static let shutdown = [
        "StorageModule.willTerminate signal=15", "FeedModule.willTerminate signal=15",
        "ShellModule.willTerminate signal=15", "ShellModule.tearDown", "FeedModule.tearDown",
        "StorageModule.tearDown", "exit after signal 15",
    ]

    @Test("SIGHUP delivers reload; SIGTERM delivers willTerminate then tearDown in reverse order, then exits 0")
    func signals() throws {
        let child = try LifecycleChild(Self.lifecycleApp(), [])
        defer { child.kill() }
        #expect(child.read(until: "ready\n", seconds: TimedCommand.hangGuard))
        let started = child.lines
        #expect(
            started.filter { $0.hasSuffix(".setUp") } == [
                "StorageModule.setUp", "FeedModule.setUp", "ShellModule.setUp",
            ])
        #expect(
            started.filter { $0.hasSuffix(".init") }.sorted() == [
                "FeedModule.init", "ShellModule.init", "StorageModule.init",
            ])
        #expect(started.filter { $0.hasSuffix(".splash") }.count == 3)

        child.send(SIGHUP)
        #expect(child.read(until: "ShellModule.reload", seconds: TimedCommand.hangGuard))
        child.send(SIGTERM)
        let termination = child.wait(seconds: TimedCommand.hangGuard)
        #expect(termination == .exited(0), "\(child)")

        let lines = child.lines
        #expect(lines.filter { $0.contains(".reload") }.count == 3)
        #expect(lines.filter { $0.contains(".reload") }.allSatisfy { $0.hasSuffix("signal=1") })
        #expect(Array(lines.drop { !$0.contains("willTerminate") }) == Self.shutdown)
    }

    @Test("a SIGHUP that arrives while the modules start is delivered once start has returned, never during an init")
    func hangupDuringStart() throws {
        let child = try LifecycleChild(Self.lifecycleApp(), ["hup-during-start"])
        defer { child.kill() }
        #expect(child.read(until: "ShellModule.reload", seconds: TimedCommand.hangGuard), "\(child)")
        child.send(SIGTERM)
        #expect(child.wait(seconds: TimedCommand.hangGuard) == .exited(0), "\(child)")
        let lines = child.lines
        let raised = try #require(lines.firstIndex(of: "FeedModule.raising SIGHUP"), "\(child)")
        let feedInit = try #require(lines.firstIndex(of: "FeedModule.init"), "\(child)")
        let lastSplash = try #require(lines.lastIndex { $0.hasSuffix(".splash") }, "\(child)")
        let reloads = lines.indices.filter { lines[$0].contains(".reload") }
        #expect(raised < feedInit && feedInit < lastSplash)
        #expect(reloads.count == 3 && reloads.allSatisfy { $0 > lastSplash }, "\(child)")
        #expect(Array(lines.drop { !$0.contains("willTerminate") }) == Self.shutdown)
    }

    @Test("a SIGTERM the program raises the moment the handlers are installed is never lost (1,000 runs, no hang)")
    func raisedAtOnce() throws {
        let app = try Self.lifecycleApp()
        let report = LifecycleRuns.repeat(1_000) { _ in
            let child = try LifecycleChild(app, ["raise-at-once"])
            return LifecycleRuns.Outcome(child.wait(seconds: TimedCommand.hangGuard), child)
        }
        #expect(report.hangs == 0, "\(report)")
        #expect(report.failures.count == 0 && report.completed == 1_000, "\(report)")
    }

    @Test("a SIGTERM the parent sends the moment the child says it is ready is never lost (100 runs, no hang)")
    func sentWhenReady() throws {
        let app = try Self.lifecycleApp()
        let report = LifecycleRuns.repeat(100) { _ in
            let child = try LifecycleChild(app, [])
            if child.read(until: "ready\n", seconds: TimedCommand.hangGuard) { child.send(SIGTERM) }
            return LifecycleRuns.Outcome(child.wait(seconds: TimedCommand.hangGuard), child)
        }
        #expect(report.hangs == 0, "\(report)")
        #expect(report.failures.count == 0 && report.completed == 100, "\(report)")
    }

    @Test("cancel() gives back the previous actions, closes each descriptor once, and may be called twice")
    func cancel() throws {
        let child = try LifecycleChild(Self.lifecycleApp(), ["cancel"])
        let termination = child.wait(seconds: TimedCommand.hangGuard)
        #expect(termination == .exited(0), "\(child)")
        let result = Command.keyValues(child.output)
        #expect(result["installed"] == "true", "the handlers replaced the previous actions")
        #expect(result["restored"] == "true", "SIGTERM default, SIGINT ignored, SIGHUP the program's own handler")
        #expect(result["secondCancelKeptOthers"] == "true", "a second cancel() closed a descriptor it did not own")
        #expect(result["restoredAfterSecondCancel"] == "true")
        #expect(result["leaked"] == "0", "\(child)")
        #expect(child.lines.suffix(2) == ["own SIGHUP handler", "done"], "the program's SIGHUP handler runs: \(child)")
        // The signal pipe, and the memory-pressure wake pipe where the kernel offers a pressure trigger.
        let added = Int(result["added"] ?? "") ?? 0
        #expect(added == (result["pressure"] == "none" ? 2 : 5), "\(child)")
        #expect(result["cloexec"] == "true", "every descriptor the handlers open is close-on-exec")
    }
}

// MARK: - Children

/// A program running in a child process, its standard output and error read through one pipe with time limits, so
/// that a hang is a result (reported, the child killed), never a test runner waiting forever. Used by one thread.
final class LifecycleChild: CustomStringConvertible {
    private let process = Process()
    private let pipe = Pipe()
    private let exited = DispatchSemaphore(value: 0)
    private var bytes: [UInt8] = []
    private var atEnd = false
    private let command: String

    /// Starts `executable` with `arguments`.
    init(_ executable: String, _ arguments: [String]) throws {
        command = ([executable] + arguments).joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = pipe
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
        try? pipe.fileHandleForWriting.close()
    }

    /// Everything the child printed so far.
    var output: String { String(decoding: bytes, as: UTF8.self) }

    /// The lines the child printed so far.
    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// Reads until the output contains `marker`, the output ends, or `seconds` pass; whether `marker` was seen.
    @discardableResult
    func read(until marker: String? = nil, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        let fd = pipe.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !atEnd {
            if let marker, output.contains(marker) { return true }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(min(left * 1000, 1000)) + 1)
            if ready < 0 && errno != EINTR { break }
            guard ready > 0 else { continue }
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                atEnd = true
            } else {
                bytes += buffer.prefix(count)
            }
        }
        return marker.map { output.contains($0) } ?? true
    }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) { Glibc.kill(process.processIdentifier, signal) }

    /// Waits up to `seconds` for the child to end (reading its output); past that, kills it: a hang.
    func wait(seconds: Double) -> TimedCommand.Termination {
        let deadline = Date().addingTimeInterval(seconds)
        read(seconds: seconds)
        if exited.wait(timeout: .now() + max(deadline.timeIntervalSinceNow, 0)) == .timedOut {
            kill()
            return .timedOut(seconds: seconds)
        }
        return process.terminationReason == .uncaughtSignal
            ? .signaled(process.terminationStatus) : .exited(process.terminationStatus)
    }

    /// Kills the child if it still runs, and reaps it.
    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        exited.wait()
    }

    var description: String { "\(command): \(process.isRunning ? "running" : "ended")\n--- output\n\(output)" }
}

/// Runs many children, a few at a time, and counts how they ended.
enum LifecycleRuns {
    /// How one run ended.
    struct Outcome: Sendable {
        let termination: TimedCommand.Termination
        let shutdown: [String]
        let transcript: String

        init(_ termination: TimedCommand.Termination, _ child: LifecycleChild) {
            self.termination = termination
            shutdown = Array(child.lines.drop { !$0.contains("willTerminate") })
            transcript = child.description
        }

        /// Exited 0 after willTerminate and tearDown in order.
        var succeeded: Bool { termination == .exited(0) && shutdown == SignalTests.shutdown }
    }

    /// What a series of runs gave.
    struct Report: CustomStringConvertible {
        var completed = 0
        var hangs = 0
        var failures: [Outcome] = []
        var stoppedEarly = false
        var seconds = 0.0

        var description: String {
            var text =
                "\(completed) runs in \(String(format: "%.1f", seconds)) s: \(failures.count) failed, \(hangs) hung"
            if stoppedEarly { text += " (stopped early)" }
            for failure in failures.prefix(3) { text += "\n\(failure.termination)\n\(failure.transcript)" }
            return text
        }
    }

    /// The runs' shared state. `@unchecked Sendable`: every access holds `lock`.
    private final class Tally: @unchecked Sendable {
        let lock = NSLock()
        var report = Report()
        var next = 0
    }

    /// Runs `body` `count` times, `parallel` at a time; stops early once more than 5 runs failed (a broken build
    /// reports in seconds, not after a thousand time limits).
    static func `repeat`(
        _ count: Int, parallel: Int = 4, _ body: @escaping @Sendable (Int) throws -> Outcome
    ) -> Report {
        let tally = Tally()
        let started = Date()
        let group = DispatchGroup()
        for _ in 0..<parallel {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while true {
                    let index: Int? = tally.lock.withLock {
                        guard tally.next < count else { return nil }
                        guard tally.report.failures.count <= 5 else {
                            tally.report.stoppedEarly = true
                            return nil
                        }
                        tally.next += 1
                        return tally.next - 1
                    }
                    guard let index else { return }
                    let outcome: Outcome
                    do {
                        outcome = try body(index)
                    } catch {
                        tally.lock.withLock { tally.report.failures.append(Outcome(.exited(-1), error)) }
                        continue
                    }
                    tally.lock.withLock {
                        tally.report.completed += 1
                        if case .timedOut = outcome.termination { tally.report.hangs += 1 }
                        if !outcome.succeeded { tally.report.failures.append(outcome) }
                    }
                }
            }
        }
        group.wait()
        return tally.lock.withLock {
            tally.report.seconds = Date().timeIntervalSince(started)
            return tally.report
        }
    }
}

extension LifecycleRuns.Outcome {
    /// A run that could not start.
    init(_ termination: TimedCommand.Termination, _ error: any Error) {
        self.termination = termination
        shutdown = []
        transcript = "could not start: \(error)"
    }
}
