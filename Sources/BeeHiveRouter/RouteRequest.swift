import BeeHive

/// Everything a route handler receives when its URL is opened.
///
/// ```swift
/// try router.register(pattern: "app://user/:id") { request in
///     let id = try request.parameters.int("id")
///     let source = request.userInfo["source"] as? String
///     return UserScreen(id: id, source: source)
/// }
/// ```
public struct RouteRequest: Sendable {
    /// The URL being dispatched, after redirects.
    public let url: String

    /// The URL as passed to ``Router/open(_:userInfo:completion:)`` before any redirect.
    public let originalURL: String

    /// The matched route's pattern, normalised (for example `app://user/:id`).
    public let pattern: String

    /// The query items merged with the path captures; a path capture wins over a query item of the same name.
    public let parameters: RouteParameters

    /// The components the pattern's trailing `~` matched, decoded; empty without a wildcard.
    public let wildcardComponents: [String]

    /// Extra values passed at open time, which a URL cannot carry (objects, closures, data).
    public let userInfo: [String: any Sendable]

    /// The completion passed to ``Router/open(_:userInfo:completion:)`` (MGJRouter's `MGJRouterParameterCompletion`).
    ///
    /// A handler may call it itself, now or later from any thread; it runs at most once. When a plain handler does
    /// not, the router calls it with the handler's result. See ``RouteCompletion``.
    public let completion: RouteCompletion

    /// Makes a request, for example to test a ``RouteHandler`` without a router.
    ///
    /// - Parameters:
    ///   - url: The URL being dispatched.
    ///   - originalURL: The URL before redirects; defaults to `url`.
    ///   - pattern: The matched pattern.
    ///   - parameters: The parameters.
    ///   - wildcardComponents: The components matched by `~`.
    ///   - userInfo: Extra values.
    ///   - completion: The opener's completion; none by default.
    public init(
        url: String,
        originalURL: String? = nil,
        pattern: String,
        parameters: RouteParameters = RouteParameters(),
        wildcardComponents: [String] = [],
        userInfo: [String: any Sendable] = [:],
        completion: RouteCompletion = .none
    ) {
        self.url = url
        self.originalURL = originalURL ?? url
        self.pattern = pattern
        self.parameters = parameters
        self.wildcardComponents = wildcardComponents
        self.userInfo = userInfo
        self.completion = completion
    }
}
