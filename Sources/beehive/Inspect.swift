import ArgumentParser

/// `beehive inspect FILE…`: every record of every BeeHive section of the files, as a table or as JSON.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the services, modules and routes that binaries declare in their BeeHive records.",
        discussion: """
            Reads every record section of each file: the sections its BeeHive note names, or beehive_services, \
            beehive_mods and beehive_routes when it has none. Files may be executables, shared libraries, object \
            files or static archives (each member is read). A record is read with the library's own parser, so \
            what is listed is what a running program registers; malformed records are listed with the reason. \
            A file that cannot be read whole (not ELF, truncated, corrupt section headers or sections, more than \
            100,000 records) gets lines on standard error naming it and what is wrong, and exit status 2; \
            everything readable is still listed.
            """
    )

    /// The output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// Aligned columns for a terminal.
        case table
        /// The stable JSON schema of Docs/CommandLineTool.md (`"version": 1`).
        case json
        /// The files as one program, in the schema of `Hive.report()` (Docs/Report.md, `"schemaVersion": 1`).
        case report
    }

    @Option(
        help: """
            table (aligned, for a terminal), json (every record of every file: the stable schema of \
            Docs/CommandLineTool.md), or report (the files as one program, in the schema of Hive.report(): \
            Docs/Report.md).
            """)
    var format: Format = .table

    @Flag(name: .long, help: "In the table, also list images and archive members without records.")
    var all = false

    @Argument(help: ArgumentHelp("Executables, shared libraries, object files or static archives.", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("expected at least one file to inspect; found none") }
    }

    func run() throws {
        if format == .report {
            let (report, errorLines) = OfflineReport.make(files)
            print(try OfflineReport.json(report), terminator: "")
            for line in errorLines { printError(line) }
            if !errorLines.isEmpty { throw ExitStatus.usage.exitCode }
            return
        }
        // One file in memory at a time, its records capped (InputFile.maximumRecords); JSON written record by
        // record, so that memory does not grow with the input.
        let writer = JSONReportWriter { print($0, terminator: "") }
        if format == .json { writer.begin() }
        var errorLines: [String] = []
        for path in files {
            let file = InputFile(path: path).report
            switch format {
            case .table: print(TableRenderer(showsEmptyImages: all).render(file), terminator: "")
            case .json: try writer.write(file)
            case .report: break
            }
            errorLines += file.errorLines
        }
        if format == .json { writer.end() }
        // A file not read whole (unreadable, corrupt, truncated, beyond the limits) fails the command, as for check.
        for line in errorLines { printError(line) }
        if !errorLines.isEmpty { throw ExitStatus.usage.exitCode }
    }
}
