import Foundation
import Testing

@testable import BeeHive
@testable import BeeHiveRouter

/// Doubling an input at most doubles the work: service files (JSON, XML and binary property lists), duplicates of
/// one service or module, module files, routes and redirects.
///
/// Work is counted in instructions, not seconds: this test runs its own binary again in two child processes under
/// `valgrind --tool=callgrind` (an XCTest case, ``ComplexityProbeCase``, runs half of the inputs and sizes each, with
/// a dump after each), which counts the instructions of ``ComplexityProbe/measuredWorkloadRegion(_:_:_:)`` alone
/// (`--toggle-collect`).
/// Instruction counts do not depend on the machine's load (a 2-core machine shared by several builds gives the same
/// numbers), unlike wall clock; hashing is made deterministic in the child (`SWIFT_DETERMINISTIC_HASHING`). Each
/// input is measured at n and 2n entries; linear work gives a ratio just under 2 (the fixed costs are shared),
/// quadratic work nearly 4. The bound is 2.4: room for the dictionaries' growth steps, far below what a quadratic
/// step gives at these sizes.
@Suite("Complexity: doubling an input at most doubles the work (instructions counted by callgrind)")
struct ComplexityTests {
    /// The largest ratio of work at 2n to work at n that passes.
    static let bound = 2.4

    @Test(
        "service files, duplicates, module files, routes and redirects: work at 2n is at most 2.4 × work at n",
        .enabled(
            if: Callgrind.isAvailable,
            "needs valgrind and objcopy (binutils) to count instructions; wall clock is no measure here"),
        .timeLimit(.minutes(20))
    )
    func doublingDoublesTheWork() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-complexity-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = ComplexityProbe.Kind.allCases.flatMap { kind in [(kind, kind.size), (kind, 2 * kind.size)] }
        for (kind, size) in plan {
            try Data(kind.input(size)).write(to: folder.appendingPathComponent("\(kind.rawValue)-\(size)"))
        }
        let counts = try Callgrind.countWorkloads(
            testCase: "BeeHiveTests.ComplexityProbeCase", runs: plan.map { "\($0.0.rawValue)-\($0.1)" },
            environment: ["BEEHIVE_COMPLEXITY_PROBE": folder.path], folder: folder)
        #expect(counts.count == plan.count, "expected one count per workload; found \(counts)")
        guard counts.count == plan.count else { return }
        var report: [String] = []
        for (index, kind) in ComplexityProbe.Kind.allCases.enumerated() {
            let small = counts[2 * index]
            let large = counts[2 * index + 1]
            let ratio = Double(large) / Double(max(small, 1))
            report.append("\(kind.rawValue): n=\(kind.size) \(small) Ir, 2n \(large) Ir, ratio \(ratio)")
            let message =
                "\(kind.rawValue): expected at most \(Self.bound) × the instructions for twice the input; found \(ratio) "
                + "(\(small) instructions for \(kind.size) entries, \(large) for \(2 * kind.size))"
            #expect(ratio <= Self.bound, Comment(rawValue: message))
            #expect(small > 0)
        }
        print(report.joined(separator: "\n"))
    }
}

/// The workloads, run in the child process that callgrind watches.
enum ComplexityProbe {
    /// One kind of input.
    enum Kind: String, CaseIterable, Sendable {
        case jsonServices, xmlServices, binaryServices, duplicateServices, moduleFile, duplicateModules, routes
        case redirects

        /// The smaller size measured: large enough that a quadratic step would dominate the fixed costs.
        var size: Int { 2_000 }

        /// The input of `count` entries, as bytes.
        func input(_ count: Int) -> [UInt8] {
            switch self {
            case .jsonServices:
                return Array(
                    ("["
                        + (0..<count).map { "{\"service\":\"App.S\($0)\",\"impl\":\"App.I\($0)\"}" }
                        .joined(separator: ",") + "]").utf8)
            case .xmlServices:
                let entries = (0..<count).map {
                    "<dict><key>service</key><string>App.S\($0)</string><key>impl</key><string>App.I\($0)</string></dict>"
                }
                return Array(
                    ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><array>"
                        + entries.joined(separator: "\n") + "</array></plist>\n").utf8)
            case .binaryServices:
                // Foundation's writer: shared keys, references as wide as the file needs.
                let entries = (0..<count).map { ["service": "App.S\($0)", "impl": "App.I\($0)"] }
                let data = try? PropertyListSerialization.data(fromPropertyList: entries, format: .binary, options: 0)
                return [UInt8](data ?? Data())
            case .duplicateServices:
                return Array(
                    ("[" + (0..<count).map { "{\"service\":\"App.S\",\"impl\":\"App.I\($0)\"}" }.joined(separator: ",")
                        + "]").utf8)
            case .moduleFile, .duplicateModules:
                let name = { (index: Int) in self == .moduleFile ? "App.M\(index)" : "App.M" }
                let entries = (0..<count).map {
                    "{\"moduleClass\":\"\(name($0))\",\"moduleLevel\":1,\"modulePriority\":\($0)}"
                }
                return Array(("{\"moduleClasses\":[" + entries.joined(separator: ",") + "]}").utf8)
            case .routes:
                // One pattern a line: registered one by one, then the last one opened.
                return Array((0..<count).map { "app://section\($0)/item/:id" }.joined(separator: "\n").utf8)
            case .redirects:
                let rules = (0..<count).map { "{\"from\":\"app://old\($0)/:id\",\"to\":\"app://new\($0)/:id\"}" }
                return Array(("{\"redirects\":[" + rules.joined(separator: ",") + "]}").utf8)
            }
        }
    }

    /// Runs the workload `run` (`<kind>-<size>`) on its input in `folder`. Called by the XCTest case
    /// ``ComplexityProbeCase`` in the child process.
    static func runWorkload(_ run: String, folder: String) throws {
        guard let dash = run.lastIndex(of: "-"), let kind = Kind(rawValue: String(run[..<dash])) else {
            throw Callgrind.Failure("expected <kind>-<size>; found \(run)")
        }
        let path = "\(folder)/\(run)"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        Self.measuredWorkloadRegion(kind, path, bytes)
    }

    /// The work callgrind counts: everything called from here, and nothing else. No closure may be written in
    /// this function (its name would match callgrind's pattern and toggle the collection).
    @inline(never)
    static func measuredWorkloadRegion(_ kind: Kind, _ path: String, _ bytes: [UInt8]) {
        switch kind {
        case .jsonServices, .xmlServices, .binaryServices, .duplicateServices: loadServices(path)
        case .moduleFile, .duplicateModules: loadModules(path)
        case .routes: openRoutes(bytes)
        case .redirects: resolveRedirects(bytes)
        }
    }

    static func loadServices(_ path: String) {
        let hive = Hive()
        do {
            try hive.loadServices(from: path)
        } catch {
            preconditionFailure("\(path) was not loaded: \(error)")
        }
        precondition(!hive.serviceRegistrations.isEmpty, "\(path): nothing registered")
    }

    static func loadModules(_ path: String) {
        let hive = Hive()
        do {
            try hive.loadModules(from: path)
        } catch {
            preconditionFailure("\(path) was not loaded: \(error)")
        }
        precondition(!hive.moduleDeclarations.isEmpty, "\(path): nothing declared")
    }

    static func openRoutes(_ bytes: [UInt8]) {
        let patterns = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        let router = Router(scheme: "app")
        for pattern in patterns { try? router.register(pattern: pattern) { _ in 1 } }
        let last = patterns.last!.replacingOccurrences(of: ":id", with: "7")
        precondition((try? router.open(last)) != nil, "the last route does not open")
    }

    static func resolveRedirects(_ bytes: [UInt8]) {
        let table = try? RedirectTable(json: bytes)
        precondition((try? table?.resolve("app://old0/7"))?.url == "app://new0/7", "the first rule does not apply")
    }
}
