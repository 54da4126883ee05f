import BeeHive
import FoundationEssentials
import Logging
import _BeeHiveDiscovery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The report of a program read from disk: what ``Hive/report()`` says in a process that loads the files, built by
/// a hive of the library's own that registers the records the load-time scanner would find, then given the
/// problems that `check` finds besides (the schema of Docs/Report.md).
///
/// A file's records come to the hive while the file is read (``InputFile``), image by image, each image with an id
/// of its own, as the scanner gives them: duplicates, ranks and malformed records are the library's own findings.
final class OfflineReport {
    /// The hive that registers the records; its diagnostics are reported, not logged.
    let hive = Hive(options: .init(logger: Logger(label: "beehive", factory: { _ in SwiftLogNoOpLogHandler() })))
    private var lastImageID: UInt64 = 0

    /// What a process's hive would say about `paths`, and the lines to print on standard error for the files not
    /// read whole (as `inspect` prints them).
    /// - Parameter paths: The files of one program: the executable and the plugins it loads.
    /// - Returns: The report, every registration `declared` (or `waiting`), and the lines for standard error.
    static func make(_ paths: [String]) -> (report: HiveReport, errorLines: [String]) {
        let offline = OfflineReport()
        let inputs = paths.map { InputFile(path: $0, typeDescriptors: true, registeringInto: offline) }
        var problems: [Diagnostic] = []
        for input in inputs {
            guard let error = input.report.error else { continue }
            let source = RegistrationSource.image(imagePath(input.report.path))
            problems.append(Diagnostic(.error, HiveError(.unreadableImage, error, source: source)))
        }
        let readable = inputs.filter { $0.report.error == nil }
        for finding in ProgramCheck(inputs: readable).findings() where finding.severity == .problem {
            guard let code = reportCode(finding.code) else { continue }
            problems.append(Diagnostic(.error, HiveError(code, finding.message, source: source(of: finding))))
        }
        offline.hive.record(problems)
        return (offline.hive.report(), inputs.flatMap(\.report.errorLines))
    }

    /// A new image id: each image registers under its own, so that two images that declare one service wait
    /// behind each other by rank, as in a process.
    func nextImageID() -> UInt64 {
        lastImageID += 1
        return lastImageID
    }

    /// The path a process names an image by: the file's real path (the path the kernel maps), or the path as
    /// given when it does not resolve; an archive member's is `path(member)`.
    /// - Parameters:
    ///   - path: The path as given.
    ///   - member: The archive member's name, for a member.
    static func imagePath(_ path: String, member: String? = nil) -> String {
        var real = path
        if let resolved = realpath(path, nil) {
            real = String(cString: resolved)
            free(resolved)
        }
        return member.map { "\(real)(\($0))" } ?? real
    }

    /// The code a finding of `check` has in the report: the library's where a running hive finds the same thing
    /// (`unknownType` for a name no file defines, `doesNotConform` for a second copy of a protocol), the tool's
    /// where only the files tell (`missingNote`, `droppedByLinker`, …); nil for what the hive found itself while
    /// registering (malformed records, duplicates).
    private static func reportCode(_ code: String) -> HiveError.Code? {
        switch code {
        case "malformedRecord", "invalidUTF8", "unterminatedRecord", "unknownModuleLevel", "duplicateRegistration":
            nil
        case "missingType": .unknownType
        case "secondProtocolCopy": .doesNotConform
        case "unreadableFile", "unreadableSection": .unreadableImage
        default: HiveError.Code(code)
        }
    }

    /// The source of a finding: its record, or its file.
    private static func source(of finding: Finding) -> RegistrationSource? {
        guard let path = finding.path else { return nil }
        guard let record = finding.record else { return .image(imagePath(path)) }
        return .annotation(
            image: imagePath(path), section: record.section, offset: record.offset,
            sectionFileOffset: record.fileOffset - UInt64(record.offset), file: record.file, line: record.line ?? 0)
    }
}

extension OfflineReport {
    /// `report` as JSON, as `JSONEncoder` writes it for a live hive's report: pretty-printed, keys sorted, slashes
    /// not escaped, and a final newline.
    /// - Parameter report: The report.
    /// - Returns: The text.
    static func json(_ report: HiveReport) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
    }
}
