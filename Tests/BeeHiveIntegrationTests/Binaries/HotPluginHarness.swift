import BeeHiveTestSupport
import Foundation

/// What a HotPluginHost run printed (Tests/Fixtures/Sources/HotPluginHost): its `<step>.<key>=<value>` lines by step,
/// and the `note=` lines the plugins printed, in order.
struct HotRun: CustomStringConvertible {
    let outcome: TimedCommand.Outcome

    /// The value a step printed under `key`.
    func value(_ step: Int, _ key: String) -> String? {
        outcome.standardOutput.split(separator: "\n").lazy.compactMap { line -> String? in
            let prefix = "\(step).\(key)="
            return line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : nil
        }.first
    }

    /// The plugins' notes, in the order they were printed.
    var notes: [String] {
        outcome.standardOutput.split(separator: "\n").filter { $0.hasPrefix("note=") }.map { String($0.dropFirst(5)) }
    }

    /// The `key:value` fields of a step's value, e.g. a rescan's `services:2 unloaded:0`.
    func fields(_ step: Int, _ key: String) -> [String: String] {
        var fields: [String: String] = [:]
        for field in (value(step, key) ?? "").split(separator: " ") {
            guard let colon = field.firstIndex(of: ":") else { continue }
            fields[String(field[..<colon])] = String(field[field.index(after: colon)...])
        }
        return fields
    }

    var description: String {
        "HotPluginHost \(outcome.termination)\n--- stdout\n\(outcome.standardOutput)--- stderr\n"
            + String(outcome.standardError.prefix(4_000))
    }
}

/// Runs HotPluginHost of the fixture package (debug or release) with a script, in a child process: a crash or a
/// hang is an outcome, not a dead test runner.
enum HotPluginHost {
    /// The folder of the fixture products of `configuration`.
    static func products(_ configuration: String) throws -> URL { try FixturePackage.products(configuration) }

    static func run(
        _ steps: [String], configuration: String = "debug", environment: [String: String] = [:], timeout: Double = 60
    ) throws -> HotRun {
        let host = try products(configuration).appendingPathComponent("HotPluginHost").path
        return HotRun(outcome: try TimedCommand.run(host, steps, environment: environment, timeout: timeout))
    }
}
