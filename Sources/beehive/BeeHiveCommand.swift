import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The `beehive` command: reads the BeeHive records of binaries before they run, and turns BeeHive's plists
/// into annotations.
@main
struct BeeHiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beehive",
        abstract:
            "Inspect, check and draw the BeeHive records of ELF binaries, and migrate BeeHive plists to annotations.",
        discussion: """
            Reads executables, shared libraries, object files and static archives from disk, without running them. \
            Exit status: 0 when everything was read (and, for check, nothing is wrong), 1 when check finds \
            problems or migrate skips entries, 2 for a usage error or a file that cannot be read whole (not ELF, \
            truncated, corrupt section headers or sections, beyond the tool's limits). \
            Docs/CommandLineTool.md describes the commands and the JSON schema.
            """,
        subcommands: [Inspect.self, Check.self, Graph.self, Migrate.self]
    )

    /// Runs the command; a usage error exits with status 2 (argument-parser's default is 64).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                writeStandardError(fullMessage(for: error) + "\n")
                terminate(with: .usage)
            }
            exit(withError: error)
        }
    }
}

/// Ends the process with `status`. A free function: inside a `ParsableCommand`, `exit` names the command's own
/// `exit(withError:)`, and the C library's `exit` is `Glibc.exit` or `Musl.exit` depending on the platform.
private func terminate(with status: ExitStatus) -> Never {
    exit(status.rawValue)
}

/// The exit statuses of every subcommand.
enum ExitStatus: Int32 {
    /// Everything was read, and nothing is wrong.
    case success = 0
    /// `check` found problems; `migrate` skipped entries.
    case problems = 1
    /// A usage error, or a file that cannot be read whole (see `InspectionReport.File.isReadWhole`).
    case usage = 2

    /// The status as an error that argument-parser turns into the process's exit status.
    var exitCode: ExitCode { ExitCode(rawValue) }
}
