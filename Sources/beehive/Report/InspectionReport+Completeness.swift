/// Whether a file was read whole: the one rule behind the exit status of `inspect` and `check`.
///
/// A file is read whole when the reader reported nothing wrong with it: it could be opened and is ELF or an
/// archive (`error`), its structure is sound (no problem of the file, of an image, or of a section: section
/// headers or a section past the end of the file, a malformed note, an archive member header cut short), and its
/// records fit the tool's limit (`omittedRecords`). Every file not read whole gets lines on standard error naming it
/// and what is wrong, and makes the command exit with status 2.
extension InspectionReport.File {
    /// How many lines of one file's problems standard error gets; the rest are counted on one more line.
    static let maximumErrorLines = 10

    /// What keeps the file from being read whole, one line each, as `<path>[(member)]: <what is wrong>`; empty
    /// when it was read whole.
    var incompleteReadings: [String] {
        if let error { return ["\(path): \(error)"] }
        var lines = problems.map { "\(path): \($0)" }
        for image in images {
            let label = label(of: image)
            lines += image.problems.map { "\(label): \($0)" }
            for section in image.sections {
                if let error = section.error { lines.append("\(label): \(error)") }
            }
        }
        if let omittedRecords {
            lines.append(
                "\(path): expected at most \(InputFile.maximumRecords) records per file; found "
                    + "\(omittedRecords) more, counted but not listed or checked")
        }
        return lines
    }

    /// Whether the file was read whole (see the extension's comment).
    var isReadWhole: Bool { incompleteReadings.isEmpty }

    /// `incompleteReadings`, at most ``maximumErrorLines`` of them, then one line counting the rest.
    var errorLines: [String] {
        let lines = incompleteReadings
        guard lines.count > Self.maximumErrorLines else { return lines }
        let rest = lines.count - Self.maximumErrorLines
        return Array(lines.prefix(Self.maximumErrorLines)) + [
            "\(path): \(rest) more problem\(rest == 1 ? "" : "s") not shown (see the output)"
        ]
    }
}
