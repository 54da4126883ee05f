import ArgumentParser

/// `beehive check FILE…`: what a running program would get wrong with the records of these files.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find what a program would get wrong with its BeeHive records, before it runs.",
        discussion: """
            The files are one program: an executable and the plugins it loads, or the object files and archives \
            it is linked from. Problems: malformed records (with the library's messages), a service, module or \
            route declared twice (both places named), records in a section that no BeeHive note names (the \
            scanner does not read them), record sections a link with --gc-sections would drop (not retained, or \
            in an archive member no link pulls in), record sections not loaded into memory, and, where the files \
            have symbol tables, every name a record gives that no file defines (missing): a service with no \
            protocol or type descriptor, an implementation, module or route handler with no type descriptor, each \
            with the closest names the files define. Names that cannot be checked (a stripped file) are reported \
            as unknown, which is no problem. \
            Exit status: 0 no problems, 1 problems found, 2 usage error or a file that cannot be read whole \
            (not ELF, truncated, corrupt section headers or sections, more than 100,000 records), which gets \
            lines on standard error naming it and what is wrong.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The files of one program: executables, shared libraries, object files, archives.",
            valueName: "file"))
    var files: [String] = []

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("expected at least one file to check; found none") }
    }

    func run() throws {
        let inputs = files.map { InputFile(path: $0, typeDescriptors: true) }
        let readable = inputs.filter { $0.report.error == nil }
        let findings = ProgramCheck(inputs: readable).findings()
        for finding in findings { print(finding) }
        let problems = findings.filter { $0.severity == .problem }.count
        let notes = findings.count - problems
        let records = readable.reduce(0) { sum, input in sum + input.report.images.reduce(0) { $0 + $1.records.count } }
        let unreadable = inputs.count - readable.count
        let partial = readable.filter { !$0.report.isReadWhole }.count
        print(
            "checked \(records) record\(records == 1 ? "" : "s") in \(readable.count) "
                + "file\(readable.count == 1 ? "" : "s"): "
                + (problems == 0 ? "no problems" : "\(problems) problem\(problems == 1 ? "" : "s")")
                + (notes == 0 ? "" : ", \(notes) note\(notes == 1 ? "" : "s")")
                + (unreadable == 0 ? "" : "; \(unreadable) file\(unreadable == 1 ? "" : "s") not read")
                + (partial == 0 ? "" : "; \(partial) file\(partial == 1 ? "" : "s") not read whole"))
        // The rule of inspect: a file not read whole (unreadable, corrupt, truncated, beyond the limits) gets
        // lines on standard error and status 2, which wins over the problems' status 1.
        let errorLines = inputs.flatMap(\.report.errorLines)
        for line in errorLines { printError(line) }
        if !errorLines.isEmpty { throw ExitStatus.usage.exitCode }
        if problems > 0 { throw ExitStatus.problems.exitCode }
    }
}
