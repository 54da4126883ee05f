import Foundation

/// Counts the instructions of workloads with `valgrind --tool=callgrind`, in a child process that runs this test
/// binary again with a filter.
enum Callgrind {
    /// The valgrind executable, when installed.
    static let valgrind: String? = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether instructions can be counted here.
    static var isAvailable: Bool { valgrind != nil }

    /// The function whose calls are counted, one count per call: ``ComplexityProbe/complexityProbeWorkload(_:_:_:)``
    /// (callgrind matches the mangled name, which holds the identifier).
    static let workloadPattern = "*complexityProbeWorkload*"

    /// Runs the tests matching `testFilter` in a child process under callgrind and returns the instructions of each
    /// call of the workload function, in call order.
    static func countWorkloads(testFilter: String, environment: [String: String], folder: URL) throws -> [UInt64] {
        guard let valgrind else { throw Failure("valgrind is not installed") }
        let output = folder.appendingPathComponent("callgrind.out").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: valgrind)
        process.arguments = [
            "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=\(workloadPattern)",
            "--dump-after=\(workloadPattern)", "--callgrind-out-file=\(output)", CommandLine.arguments[0],
            "--testing-library", "swift-testing", "--filter", testFilter,
        ]
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment.merge(environment) { $1 }
        childEnvironment["SWIFT_DETERMINISTIC_HASHING"] = "1"
        process.environment = childEnvironment
        let log = folder.appendingPathComponent("child.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw Failure("the child under callgrind exited with \(process.terminationStatus):\n\(text.suffix(4000))")
        }
        // One dump per call: callgrind.out.1, .2, …; the last file (no number) holds what ran after them.
        var counts: [UInt64] = []
        var part = 1
        while let text = try? String(contentsOfFile: "\(output).\(part)", encoding: .utf8) {
            counts.append(try instructions(in: text))
            part += 1
        }
        return counts
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
