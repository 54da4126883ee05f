import BeeHive

/// An error thrown by a ``Router``, a ``RoutePattern``, ``RouteParameters`` or a ``RedirectTable``.
///
/// Match on ``code`` (new codes may be added without breaking a `switch` that has a `default:`); read
/// ``message`` for what was expected, what was found, and where (the URL, the pattern, the parameter or the
/// redirect file and entry).
///
/// ```swift
/// do {
///     try router.open("app://user/abc")
/// } catch let error as RouterError where error.code == .invalidParameter {
///     print(error.message)  // parameter 'id' of 'app://user/abc' (route 'app://user/:id'): expected Int, ...
/// }
/// ```
public struct RouterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of router failure; compare it with the static members, such as ``malformedURL``.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case malformedURL
            case malformedPattern
            case unknownScheme
            case duplicateRoute
            case routeNotFound
            case missingParameter
            case invalidParameter
            case serviceNotFound
            case unknownAction
            case typeMismatch
            case redirectLoop
            case redirectLimitExceeded
            case redirectURLTooLong
            case invalidRedirectLimit
            case malformedRedirectFile
            case malformedRedirectEntry
            case unknownPathComponent
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The code's name, for example `routeNotFound`.
        public var description: String { value.rawValue }

        /// A URL could not be parsed: no `scheme://`, a bad scheme, or a bad percent-escape.
        public static let malformedURL = Code(.malformedURL)
        /// A route pattern could not be parsed or is not allowed (for example a query, or a repeated parameter name).
        public static let malformedPattern = Code(.malformedPattern)
        /// The URL's scheme is not the router's scheme, or no route is registered for it.
        public static let unknownScheme = Code(.unknownScheme)
        /// A pattern matches exactly the same URLs as one already registered.
        public static let duplicateRoute = Code(.duplicateRoute)
        /// No registered route matches the URL.
        public static let routeNotFound = Code(.routeNotFound)
        /// A parameter that a handler or a URL template needs is absent.
        public static let missingParameter = Code(.missingParameter)
        /// A parameter is present but cannot be read as the requested type.
        public static let invalidParameter = Code(.invalidParameter)
        /// A service call URL names a service that the ``ServiceActionResolver`` does not know.
        public static let serviceNotFound = Code(.serviceNotFound)
        /// A service call URL names an action that the service does not handle.
        public static let unknownAction = Code(.unknownAction)
        /// A route returned a value of another type than the caller asked for.
        public static let typeMismatch = Code(.typeMismatch)
        /// Following redirects came back to a URL already visited.
        public static let redirectLoop = Code(.redirectLoop)
        /// Following redirects took more hops than the table allows.
        public static let redirectLimitExceeded = Code(.redirectLimitExceeded)
        /// A redirect rule produced a URL longer than ``RedirectTable/maximumURLLength``.
        public static let redirectURLTooLong = Code(.redirectURLTooLong)
        /// A ``RedirectTable`` was made in code with a hop limit below 1 or above ``RedirectTable/maximumHopsLimit``.
        public static let invalidRedirectLimit = Code(.invalidRedirectLimit)
        /// A redirect file could not be read, or is not the expected JSON document at all.
        public static let malformedRedirectFile = Code(.malformedRedirectFile)
        /// One entry of a redirect file is invalid; the other entries still load.
        public static let malformedRedirectEntry = Code(.malformedRedirectEntry)
        /// A BHRouter URL names a path component key the router does not have (``Router/addPathComponent(_:for:handler:)``).
        public static let unknownPathComponent = Code(.unknownPathComponent)
    }

    /// The kind of failure.
    public let code: Code

    /// A sentence that says what was expected, what was found, and where.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message and the code, for logs: `<message> [<code>]`, as every BeeHive error prints.
    public var description: String { "\(message) [\(code)]" }
}

// MARK: - Factories for action handlers

extension RouterError {
    /// Makes the error an ``ActionHandling`` service throws for an action it does not implement.
    ///
    /// - Parameters:
    ///   - action: The action named in the URL.
    ///   - service: The service named in the URL.
    ///   - available: The actions the service does implement, listed in the message.
    /// - Returns: An error with code ``Code/unknownAction``.
    public static func unknownAction(_ action: String, service: String, available: [String] = []) -> RouterError {
        let list = available.isEmpty ? "" : "; available actions: \(available.sorted().joined(separator: ", "))"
        return RouterError(
            .unknownAction,
            "service '\(service)' has no action '\(action)': expected one of its actions, found '\(action)'\(list)"
        )
    }
}
