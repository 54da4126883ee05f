import ArgumentParser
import FoundationEssentials

/// `beehive inspect FILE…`: every record of every BeeHive section of the files, as a table or as JSON.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the services, modules and routes that binaries declare in their BeeHive records.",
        discussion: """
            Reads every record section of each file: the sections its BeeHive note names, or beehive_services, \
            beehive_mods and beehive_routes when it has none. Files may be executables, shared libraries, object \
            files or static archives (each member is read). A record is read with the library's own parser, so \
            what is listed is what a running program registers; malformed records are listed with the reason. \
            A file that cannot be read gets one line on standard error and exit status 2; the others are still \
            listed.
            """
    )

    /// The output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// Aligned columns for a terminal.
        case table
        /// The stable JSON schema of Docs/CommandLineTool.md (`"version": 1`).
        case json
    }

    @Option(help: "table (aligned, for a terminal) or json (the stable schema of Docs/CommandLineTool.md).")
    var format: Format = .table

    @Flag(name: .long, help: "In the table, also list images and archive members without records.")
    var all = false

    @Argument(help: ArgumentHelp("Executables, shared libraries, object files or static archives.", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("expected at least one file to inspect; found none") }
    }

    func run() throws {
        let inputs = files.map { InputFile(path: $0) }
        let report = InspectionReport(files: inputs.map(\.report))
        switch format {
        case .table:
            print(TableRenderer(showsEmptyImages: all).render(report), terminator: "")
        case .json:
            print(try Self.json(report))
        }
        let unreadable = report.files.filter { $0.error != nil }
        for file in unreadable { printError("\(file.path): \(file.error ?? "")") }
        if !unreadable.isEmpty { throw ExitStatus.usage.exitCode }
    }

    /// The report as pretty-printed JSON with sorted keys, so that the same files always give the same text.
    static func json(_ report: InspectionReport) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }
}
