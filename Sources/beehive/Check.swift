import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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
            as unknown, which is no problem. A plugin that carries its own BeeHive (it defines \
            beehive_core_runtime_marker, which the host takes from libBeeHiveDynamic.so or has itself: \
            secondBeeHive) or its own copy of a service's protocol that another file defines too \
            (secondProtocolCopy) is refused at load, and reported. Versions of one plugin that the host loads one \
            at a time are given with --alternatives: each is checked with the other files, not with its \
            alternatives. \
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

    @Option(
        name: .customLong("alternatives"),
        help: ArgumentHelp(
            "Files that are alternatives, separated by commas: versions of one plugin that the host loads one at a "
                + "time. Each is checked with the other files, never with the files of its group; they are checked "
                + "even when not given as files. Repeat the option for each group.",
            valueName: "file,file…"))
    var alternatives: [String] = []

    /// The groups of `--alternatives`, each file once.
    private var groups: [[String]] {
        alternatives.map { group in
            var seen: Set<String> = []
            return group.split(separator: ",", omittingEmptySubsequences: false).map(String.init).filter {
                seen.insert(Self.identity(of: $0)).inserted
            }
        }
    }

    func validate() throws {
        for (option, group) in zip(alternatives, groups) {
            if group.contains(where: \.isEmpty) {
                throw ValidationError(
                    "expected --alternatives to list files separated by single commas; found an empty name in "
                        + "\"\(option)\"")
            }
            if group.count < 2 {
                throw ValidationError(
                    "expected --alternatives to list at least two different files separated by commas; found "
                        + "\"\(option)\"")
            }
        }
        guard !files.isEmpty || !alternatives.isEmpty else {
            throw ValidationError("expected at least one file to check; found none")
        }
    }

    /// What makes two spellings of a path one file: its real path when it resolves, else the path as given.
    private static func identity(of path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The files to check: those given, then the alternatives not among them; and the groups of alternatives, by
    /// the paths as checked (a file given as `./v1.so` and in a group as `v1.so` is one file).
    private func filesAndGroups() -> (files: [String], groups: [Set<String>]) {
        var paths = files
        var pathOf: [String: String] = [:]
        for file in files where pathOf[Self.identity(of: file)] == nil { pathOf[Self.identity(of: file)] = file }
        let groups = groups.map { group in
            Set(
                group.map { file in
                    let identity = Self.identity(of: file)
                    if let path = pathOf[identity] { return path }
                    pathOf[identity] = file
                    paths.append(file)
                    return file
                })
        }
        return (paths, groups)
    }

    func run() throws {
        let (paths, groups) = filesAndGroups()
        let inputs = paths.map { InputFile(path: $0, typeDescriptors: true) }
        let readable = inputs.filter { $0.report.error == nil }
        let findings = ProgramCheck(inputs: readable, alternatives: groups).findings()
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
