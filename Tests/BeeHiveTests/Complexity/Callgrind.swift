import BeeHiveCallgrindRequests
import Foundation

/// Counts the instructions of workloads with `valgrind --tool=callgrind`, in a child process that runs this test
/// binary again with a filter.
enum Callgrind {
    /// The valgrind executable, when installed.
    static let valgrind: String? = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// `objcopy`, to strip a copy of the test binary of its debug information: valgrind 3.19 cannot read the DWARF 5
    /// of debug builds ("unhandled dwarf2 abbrev form code 0x25") and gives up; the symbol table is enough.
    static let objcopy: String? = ["/usr/bin/objcopy", "/usr/local/bin/objcopy"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether instructions can be counted here: valgrind and objcopy are installed, and this test binary was built
    /// with valgrind's headers (for the client requests).
    static var isAvailable: Bool {
        valgrind != nil && objcopy != nil && beehive_callgrind_requests_available() != 0
    }

    /// The function whose calls are counted, one count per call: ``ComplexityProbe/measuredWorkloadRegion(_:_:_:)``
    /// (callgrind matches the mangled name, which holds the identifier whole only if none of its words appeared
    /// earlier in the name: Swift's mangling replaces repeated words, so `complexityProbeWorkload` in
    /// `ComplexityProbe` would not match).
    static let workloadPattern = "*measuredWorkloadRegion*"

    /// Runs the XCTest case `testCase` (`Module.Class`) in child processes under callgrind, one per processor (at most
    /// two), each with `BEEHIVE_COMPLEXITY_RUNS` set to its share of `runs` joined by commas; a child runs each of its
    /// workloads and then asks callgrind for a dump labelled with its name (a client request,
    /// ``beehive_callgrind_dump``). Returns the instructions of the workload function in each run, in the order of
    /// `runs`. A few processes for all: starting this test binary under callgrind costs seconds.
    ///
    /// Runs are dealt to the children in snake order (with two: 0, 1, 1, 0, 0, 1, …): runs that come in pairs of
    /// size n and 2n give each child as many of each, where dealing in turn gave one child every 2n run, twice the
    /// other's work, and the stage waited for it alone.
    static func countWorkloads(
        testCase: String, runs: [String], environment: [String: String], folder: URL
    ) throws -> [UInt64] {
        guard let valgrind, let objcopy else { throw Failure("valgrind or objcopy is not installed") }
        // Beside the original, so that its run paths ($ORIGIN) still find the libraries built with it.
        let binary = CommandLine.arguments[0]
        let stripped = binary + "-callgrind-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: stripped) }
        let strip = try Process.run(URL(fileURLWithPath: objcopy), arguments: ["--strip-debug", binary, stripped])
        strip.waitUntilExit()
        guard strip.terminationStatus == 0 else { throw Failure("objcopy --strip-debug \(binary) failed") }
        let processes = max(1, min(2, ProcessInfo.processInfo.activeProcessorCount))
        let shares = (0..<processes).map { share in
            runs.indices.filter { ($0 + $0 / processes) % processes == share }.map { runs[$0] }
        }
        let children = try shares.enumerated().map { share, runs in
            let dumps = folder.appendingPathComponent("dumps-\(share)")
            try FileManager.default.createDirectory(at: dumps, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: valgrind)
            process.arguments = [
                "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=\(workloadPattern)",
                "--callgrind-out-file=\(dumps.path)/callgrind.out", stripped, testCase,
            ]
            var childEnvironment = ProcessInfo.processInfo.environment
            childEnvironment.merge(environment) { $1 }
            childEnvironment["BEEHIVE_COMPLEXITY_RUNS"] = runs.joined(separator: ",")
            childEnvironment["SWIFT_DETERMINISTIC_HASHING"] = "1"
            process.environment = childEnvironment
            let log = folder.appendingPathComponent("child-\(share).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            return (process, handle, log, dumps)
        }
        var counts: [String: UInt64] = [:]
        for (process, handle, log, dumps) in children {
            process.waitUntilExit()
            try handle.close()
            guard process.terminationStatus == 0 else {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                let reasons = text.split(separator: "\n").filter { $0.contains("Fatal error") || $0.contains("error:") }
                throw Failure(
                    "the child under callgrind exited with \(process.terminationStatus): "
                        + "\(reasons.prefix(5).joined(separator: "\n"))\n…\n\(text.suffix(2000))")
            }
            for file in try FileManager.default.contentsOfDirectory(atPath: dumps.path) {
                let dump = try String(contentsOfFile: "\(dumps.path)/\(file)", encoding: .utf8)
                if let label = label(of: dump) { counts[label] = try instructions(in: dump) }
            }
        }
        return try runs.map { run in
            guard let count = counts[run] else {
                throw Failure("expected a callgrind dump labelled \(run); found \(counts.keys.sorted())")
            }
            return count
        }
    }

    /// The label of a dump that a client request asked for (its line `desc: Trigger: Client Request: <label>`).
    static func label(of dump: String) -> String? {
        let prefix = "desc: Trigger: Client Request: "
        return dump.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// The instruction count of one callgrind dump: its `summary:` (or `totals:`) line.
    static func instructions(in dump: String) throws -> UInt64 {
        for line in dump.split(separator: "\n") where line.hasPrefix("summary:") || line.hasPrefix("totals:") {
            if let value = line.split(separator: " ").dropFirst().first.flatMap({ UInt64($0) }) { return value }
        }
        throw Failure("expected a summary: line in the callgrind dump; found none")
    }

    /// A failure to measure.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
