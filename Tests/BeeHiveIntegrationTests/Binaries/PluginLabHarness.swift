import BeeHiveTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The steps of a PluginLab run (Tests/Fixtures/Sources/PluginLab): each method adds one and returns its number,
/// by which the run's results are read.
struct LabScript {
    /// A step's number, from 0.
    typealias Step = Int

    private(set) var steps: [String] = []

    @discardableResult
    mutating func add(_ step: String) -> Step {
        steps.append(step)
        return steps.count - 1
    }

    /// dlopen; the n-th `open` of a script is handle n (from 0).
    @discardableResult mutating func open(_ path: String) -> Step { add("open:\(path)") }
    @discardableResult mutating func close(handle: Int) -> Step { add("close:\(handle)") }
    @discardableResult mutating func rescan() -> Step { add("rescan") }
    @discardableResult mutating func services() -> Step { add("services") }
    /// The services of a hive made at this step (`Hive(options: .init(scansLoadedImages: true))`).
    @discardableResult mutating func newHiveServices() -> Step { add("new-hive-services") }
    @discardableResult mutating func modules() -> Step { add("modules") }
    @discardableResult mutating func declaredRoutes() -> Step { add("declared-routes") }
    @discardableResult mutating func route(_ url: String) -> Step { add("route:\(url)") }
    @discardableResult mutating func bootstrap() -> Step { add("bootstrap") }
    @discardableResult mutating func removeAllRouters() -> Step { add("remove-all-routers") }
    @discardableResult mutating func validateRoutes() -> Step { add("validate-routes") }
    @discardableResult mutating func diagnostics() -> Step { add("diagnostics") }
    @discardableResult mutating func counts() -> Step { add("counts") }
    /// Whether libelf is in the process, and in the loader's global scope: `loaded:yes|no global:yes|no`.
    @discardableResult mutating func libelf() -> Step { add("libelf") }
    @discardableResult mutating func chdir(_ directory: String) -> Step { add("chdir:\(directory)") }
    @discardableResult mutating func truncate(_ path: String, to size: Int) -> Step { add("truncate:\(path):\(size)") }
    @discardableResult mutating func replaceWithFIFO(_ path: String) -> Step { add("mkfifo-replace:\(path)") }
    @discardableResult mutating func overwriteHead(_ path: String) -> Step { add("overwrite-head:\(path)") }
    /// Rewrites `path` in place (same inode) with the bytes of `source`.
    @discardableResult mutating func copy(_ source: String, over path: String) -> Step {
        add("copy-over:\(source):\(path)")
    }
    /// Puts a copy of `source` at `path` by rename (a new inode).
    @discardableResult mutating func replace(_ path: String, with source: String) -> Step {
        add("replace:\(source):\(path)")
    }
    /// `count` times: open `path`, rescan, close it, rescan.
    @discardableResult mutating func cycles(_ count: Int, _ path: String) -> Step { add("cycles:\(count):\(path)") }
}

/// A service, module or route declaration as PluginLab prints it: `<name> -> <detail> @ <image path> #<image id>`,
/// where the detail is a service's implementation, a module's `priority:<n>` or a route's handler.
struct LabEntry: Equatable, CustomStringConvertible {
    let name: String
    let detail: String
    let imagePath: String
    let imageID: UInt64

    init?(_ line: String) {
        guard let arrow = line.range(of: " -> "), let at = line.range(of: " @ ", options: .backwards),
            let hash = line.range(of: " #", options: .backwards), arrow.upperBound <= at.lowerBound,
            let id = UInt64(line[hash.upperBound...])
        else { return nil }
        name = String(line[..<arrow.lowerBound])
        detail = String(line[arrow.upperBound..<at.lowerBound])
        imagePath = String(line[at.upperBound..<hash.lowerBound])
        imageID = id
    }

    var description: String { "\(name) -> \(detail) @ \(imagePath) #\(imageID)" }
}

/// A diagnostic as PluginLab prints it: `<severity> <code> @ <image path> #<image id>: <message>`.
struct LabDiagnostic: CustomStringConvertible {
    let severity: String
    let code: String
    let imagePath: String
    let imageID: UInt64
    let message: String

    init?(_ line: String) {
        let words = line.split(separator: " ", maxSplits: 3)
        guard words.count == 4, words[2] == "@", let colon = words[3].range(of: ": "),
            let hash = words[3][..<colon.lowerBound].range(of: " #", options: .backwards),
            let id = UInt64(words[3][hash.upperBound..<colon.lowerBound])
        else { return nil }
        severity = String(words[0])
        code = String(words[1])
        imagePath = String(words[3][..<hash.lowerBound])
        imageID = id
        message = String(words[3][colon.upperBound...])
    }

    var description: String { "\(severity) \(code) @ \(imagePath) #\(imageID): \(message)" }
}

/// What a PluginLab run printed, by step.
struct LabRun: CustomStringConvertible {
    let outcome: TimedCommand.Outcome
    private let lines: [(step: Int, key: String, value: String)]

    init(_ outcome: TimedCommand.Outcome) {
        self.outcome = outcome
        lines = outcome.standardOutput.split(separator: "\n").compactMap { line in
            guard let dot = line.firstIndex(of: "."), let step = Int(line[..<dot]),
                let equals = line[dot...].firstIndex(of: "=")
            else { return nil }
            return (step, String(line[line.index(after: dot)..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    /// Every value a step printed under `key`.
    func values(_ step: LabScript.Step, _ key: String) -> [String] {
        lines.filter { $0.step == step && $0.key == key }.map(\.value)
    }

    /// The first value a step printed under `key`.
    func value(_ step: LabScript.Step, _ key: String) -> String? { values(step, key).first }

    /// A rescan step's report, e.g. `["services": 2, "unloaded": 1]`.
    func report(_ step: LabScript.Step) -> [String: Int] {
        var report: [String: Int] = [:]
        for field in (value(step, "rescan") ?? "").split(separator: " ") {
            let parts = field.split(separator: ":")
            if parts.count == 2, let number = Int(parts[1]) { report[String(parts[0])] = number }
        }
        return report
    }

    /// The load address an `open` step printed.
    func loadAddress(_ step: LabScript.Step) -> String? {
        value(step, "open")?.split(separator: " ").first { $0.hasPrefix("base:") }.map { String($0.dropFirst(5)) }
    }

    func services(_ step: LabScript.Step) -> [LabEntry] { values(step, "service").compactMap(LabEntry.init) }
    func modules(_ step: LabScript.Step) -> [LabEntry] { values(step, "module").compactMap(LabEntry.init) }
    func declaredRoutes(_ step: LabScript.Step) -> [LabEntry] {
        values(step, "declaredRoute").compactMap(LabEntry.init)
    }
    func diagnostics(_ step: LabScript.Step) -> [LabDiagnostic] {
        values(step, "diagnostic").compactMap(LabDiagnostic.init)
    }

    /// Whether the route step's URL could be opened, and what opening it returned (the handler's name).
    func route(_ step: LabScript.Step) -> (canOpen: Bool, openedBy: String)? {
        guard let value = value(step, "route") else { return nil }
        let fields = value.split(separator: " ")
        guard fields.count == 2 else { return nil }
        return (fields[0] == "canOpen:true", String(fields[1].dropFirst("opened:".count)))
    }

    /// The `count:<kept> dropped:<n>` line of a diagnostics or counts step.
    func diagnosticCounts(_ step: LabScript.Step) -> (kept: Int, dropped: Int)? {
        let fields = (value(step, "diagnostics") ?? "").split(separator: " ").compactMap {
            $0.split(separator: ":").last.flatMap { Int($0) }
        }
        return fields.count == 2 ? (fields[0], fields[1]) : nil
    }

    var description: String {
        "PluginLab \(outcome.termination)\n--- stdout\n\(outcome.standardOutput)--- stderr\n\(outcome.standardError)"
    }
}

/// Builds and runs PluginLab.
enum PluginLab {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: Result<String, Command.Failure>?

    /// The PluginLab executable, built with the fixture package (debug). The environment variable PLUGINLAB may name
    /// another build of it (for example one built against an older BeeHive, to see these tests fail there).
    static func executable() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let built { return try built.get() }
        let result: Result<String, Command.Failure>
        if let given = ProcessInfo.processInfo.environment["PLUGINLAB"], !given.isEmpty {
            result = .success(given)
        } else {
            do {
                result = .success(try FixturePackage.products("debug").appendingPathComponent("PluginLab").path)
            } catch let error as Command.Failure {
                result = .failure(error)
            } catch {
                result = .failure(Command.Failure(description: "\(error)"))
            }
        }
        built = result
        return try result.get()
    }

    /// Whether runs as an unprivileged user (who may not open /proc/self/map_files) are possible here.
    static var canRunUnprivileged: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    /// Runs a script in a child process, as root or (`unprivileged`) as the user nobody; a crash or a hang is an
    /// outcome, not a dead test runner.
    static func run(
        _ script: LabScript, in directory: URL? = nil, unprivileged: Bool = false, preloading preload: String? = nil,
        timeout: Double = TimedCommand.hangGuard
    ) throws -> LabRun {
        let lab = try executable()
        let environment = preload.map { ["LD_PRELOAD": $0] } ?? [:]
        let outcome =
            unprivileged
            ? try TimedCommand.run(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", lab] + script.steps,
                in: directory, environment: environment, timeout: timeout)
            : try TimedCommand.run(lab, script.steps, in: directory, environment: environment, timeout: timeout)
        return LabRun(outcome)
    }
}

/// A temporary folder for plugins the tests compile from Tests/Fixtures/CPlugins; removed when released.
final class LabFolder {
    let url: URL

    /// The C sources of the test plugins.
    static let sources = FixturePackage.path.appendingPathComponent("CPlugins")

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-lab-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // Open to everyone, so that a run as an unprivileged user can read, replace and remove plugins here.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: url.path)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` in this folder.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The path the kernel reports for a file of this folder: absolute, symbolic links resolved.
    func mappedPath(_ name: String) -> String { url.appendingPathComponent(name).resolvingSymlinksInPath().path }

    /// Compiles `source` (a file of Tests/Fixtures/CPlugins) into the shared library `name` of this folder:
    /// `cc -shared -fPIC`, with the record segment apart from the notes (`-z separate-code`). `format` is the record
    /// format `beehive.h` writes: 3 (the newest) places the records in memory; 2 makes the scanner read them through
    /// the plugin's file, the path of last resort (images of the Swift macros, images built before format 3).
    @discardableResult
    func plugin(_ name: String, from source: String, flags: [String] = [], format: Int = 3) throws -> String {
        let output = path(name)
        let include = Command.repository.appendingPathComponent("CSupport/CBeeHive/include").path
        let file = Self.sources.appendingPathComponent(source).path
        let version = format == 3 ? [] : ["-DBH_FORMAT_VERSION=\(format)"]
        try Command.run(
            "cc", ["-shared", "-fPIC", "-Wl,-z,separate-code", "-I", include] + version + flags + [file, "-o", output])
        // Writable by everyone, so that a run as an unprivileged user can rewrite it in place.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: output)
        return output
    }

    /// Compiles Tests/Fixtures/SwiftFormat2/Records.swift (an image of record format 2 as the Swift macros wrote it
    /// before format 3, written out) into the shared library `name` of this folder: `swiftc -emit-library`, about
    /// two seconds, no BeeHive needed.
    @discardableResult
    func swiftFormat2Plugin(_ name: String) throws -> String {
        let output = path(name)
        let file = FixturePackage.path.appendingPathComponent("SwiftFormat2/Records.swift").path
        try Command.run(
            "swiftc", ["-emit-library", "-parse-as-library", "-module-name", "SwiftTwo", file, "-o", output])
        return output
    }
}
