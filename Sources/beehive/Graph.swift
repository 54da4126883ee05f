import ArgumentParser

/// `beehive graph FILE…`: the program's wiring as a Graphviz DOT graph, read from disk.
struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the services, modules and routes that binaries declare as a Graphviz DOT graph.",
        discussion: """
            The files are one program: an executable and the plugins it loads. The graph is the one a running \
            hive draws of its report (HiveReport.graphviz, Docs/Report.md) for the report that \
            `inspect --format report` prints: each image points to its registrations, each registration to its \
            service; a registration that waits behind a higher rank is dashed; modules are grouped by level; \
            routes point to their handlers; problems are red notes beside the image they name. \
            `beehive graph app libplugin.so | dot -Tsvg -o app.svg` draws it. \
            A file that cannot be read whole gets lines on standard error and exit status 2, as for inspect; \
            what was read is still drawn.
            """
    )

    @Argument(help: ArgumentHelp("The executable and the plugins it loads (shared libraries).", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("expected at least one file to draw; found none") }
    }

    func run() throws {
        let (report, errorLines) = OfflineReport.make(files)
        print(report.graphviz, terminator: "")
        for line in errorLines { printError(line) }
        if !errorLines.isEmpty { throw ExitStatus.usage.exitCode }
    }
}
