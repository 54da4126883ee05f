/// One thing `beehive check` found: a problem (exit status 1) or a note (no effect on the status).
struct Finding: Sendable, Equatable, CustomStringConvertible {
    /// Whether the finding makes the check fail.
    enum Severity: String, Sendable {
        /// Something a running program would get wrong: the check fails.
        case problem
        /// Something worth knowing that is not wrong: a type that cannot be checked, a file without records.
        case note
    }

    /// Whether the finding makes the check fail.
    var severity: Severity
    /// A stable code: the library's (`malformedRecord`, `duplicateRegistration`, …) or the tool's
    /// (`missingNote`, `droppedByLinker`, `missingType`, …).
    var code: String
    /// Where: the file (and archive member), and the section and record offset when there is one.
    var location: String
    /// What was expected and what was found.
    var message: String
    /// The path, as given, of the file it concerns, when it concerns one.
    var path: String? = nil
    /// The record it concerns, when it concerns one.
    var record: InspectionReport.Record? = nil

    /// `location: problem: message [code]`, one line.
    var description: String { "\(location): \(severity == .problem ? "error" : "note"): \(message) [\(code)]" }
}
