import BeeHive
import BeeHiveRouter

/// An error thrown by a ``Mediator`` or by ``MediatorParameters``.
///
/// Match on ``code``; read ``message`` for what was expected, what was found and where (the target, the
/// action, the URL, the parameter).
///
/// ```swift
/// do {
///     try mediator.handleRemoteURL("app://User/deleteAccount")
/// } catch let error as MediatorError where error.code == .remoteCallRefused {
///     print(error.message)
/// }
/// ```
public struct MediatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of mediator failure; compare it with the static members, such as ``targetNotFound``.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case targetNotFound
            case actionNotFound
            case remoteCallRefused
            case malformedURL
            case unknownScheme
            case missingParameter
            case invalidParameter
            case duplicateAction
            case typeMismatch
            case redirectFailed
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The code's name, for example `targetNotFound`.
        public var description: String { value.rawValue }

        /// No type with the target's name (as given, or with the `Target_` prefix) conforms to ``MediatorTarget``.
        public static let targetNotFound = Code(.targetNotFound)
        /// The target has no action with this name and no not-found action took the call.
        public static let actionNotFound = Code(.actionNotFound)
        /// A call from outside the process asked for an action that is not marked remote-callable.
        public static let remoteCallRefused = Code(.remoteCallRefused)
        /// A URL is not `scheme://<target>/<action>?k=v` or cannot be parsed; see ``underlying``.
        public static let malformedURL = Code(.malformedURL)
        /// A URL's scheme is not the mediator's scheme.
        public static let unknownScheme = Code(.unknownScheme)
        /// A parameter an action needs is absent.
        public static let missingParameter = Code(.missingParameter)
        /// A parameter is present but of another type than the action asked for.
        public static let invalidParameter = Code(.invalidParameter)
        /// A target declares two actions with the same name.
        public static let duplicateAction = Code(.duplicateAction)
        /// An action returned a value of another type than the caller asked for.
        public static let typeMismatch = Code(.typeMismatch)
        /// Applying the redirect table failed (a loop, too many hops); see ``underlying``.
        public static let redirectFailed = Code(.redirectFailed)
    }

    /// The kind of failure.
    public let code: Code

    /// A sentence that says what was expected, what was found, and where.
    public let message: String

    /// The router error behind a ``Code/malformedURL`` or ``Code/redirectFailed`` error, if any.
    public let underlying: RouterError?

    init(_ code: Code, _ message: String, underlying: RouterError? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The message and the code, for logs: `<message> [<code>]`, as every BeeHive error prints.
    public var description: String { "\(message) [\(code)]" }
}
