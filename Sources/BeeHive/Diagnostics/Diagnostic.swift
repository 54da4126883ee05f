/// A problem found while registering or resolving, kept so that code can query it.
///
/// Every diagnostic is also logged through swift-log when it is recorded.
///
/// ```swift
/// for diagnostic in Hive.shared.diagnostics where diagnostic.severity == .error {
///     print(diagnostic)   // error: image /app/bin/App, section beehive_services, record at offset 0x40, …
/// }
/// ```
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a problem is.
    public enum Severity: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Something was ignored (a duplicate, a withdrawn image); everything valid still works.
        case warning
        /// A registration was rejected or cannot be resolved.
        case error

        public static func < (a: Severity, b: Severity) -> Bool { a.rawValue < b.rawValue }
        public var description: String { self == .warning ? "warning" : "error" }
    }

    /// How serious the problem is.
    public let severity: Severity
    /// The problem.
    public let error: HiveError

    /// The kind of problem.
    public var code: HiveError.Code { error.code }
    /// What was expected and what was found.
    public var message: String { error.message }
    /// Where the problem came from.
    public var source: RegistrationSource? { error.source }

    /// Creates a diagnostic.
    public init(_ severity: Severity, _ error: HiveError) {
        self.severity = severity
        self.error = error
    }

    public var description: String { "\(severity): \(error)" }
}
