import BeeHive

/// A typed URL router: patterns such as `app://user/:id` map to handlers that return `Output`.
///
/// The model is routing-kit's `TrieRouter<Output>`: the compiler checks every handler's result, and opening a URL
/// gives an `Output`, with no cast. Patterns, precedence (literal, then `:param`, then `~`), the cost bound, query
/// merging, redirects and the fallback are those of ``Router``, which is this table with `Any?` results plus
/// BeeHive's process-wide routers, service calls and path components.
///
/// ```swift
/// let screens = RouteTable<Screen>(scheme: "app")
/// try screens.register(pattern: "app://user/:id") { request in .user(id: try request.parameters.int("id")) }
/// screens.setFallback { fallback in .web(fallback.url) }
/// let screen: Screen = try screens.open("app://user/42")
/// ```
///
/// Every method may be called from any thread; handlers and the fallback run with no lock held.
public final class RouteTable<Output>: Sendable {
    /// A route handler: receives the request, returns the route's output.
    public typealias Handler = @Sendable (RouteRequest) throws -> Output
    /// A handler for URLs no route handles; see ``setFallback(_:)``.
    public typealias FallbackHandler = @Sendable (RouteFallback) throws -> Output

    /// The lower-cased scheme this table accepts, or `nil` for a table that accepts every scheme.
    public let scheme: String?

    struct State: Sendable {
        var routes = RouteIndex<Handler>()
        var redirects: RedirectTable?
        var fallback: FallbackHandler?
    }

    let state: LockedValue<State>

    /// Makes an empty table.
    ///
    /// - Parameter scheme: The only scheme the table accepts (case-insensitive), or `nil` to accept every scheme.
    public init(scheme: String? = nil) {
        self.scheme = scheme?.lowercased()
        state = LockedValue(State())
    }

    // MARK: - Registration

    /// Registers a handler for a pattern.
    ///
    /// ```swift
    /// try table.register(pattern: "app://user/:id") { request in .user(id: try request.parameters.int("id")) }
    /// ```
    /// - Parameters:
    ///   - pattern: The pattern, for example `app://user/:id`; on a table with a scheme `user/:id` is accepted too.
    ///   - fileID: Where the route is registered, named by a later duplicate's error (default: the call site).
    ///   - line: The line of the registration.
    ///   - handler: Runs (with no lock held) each time a matching URL is opened.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedPattern``, ``RouterError/Code/unknownScheme``
    ///   (the pattern's scheme is not the table's), or ``RouterError/Code/duplicateRoute`` (naming where both were
    ///   registered).
    public func register(
        pattern: String, fileID: String = #fileID, line: Int = #line, handler: @escaping Handler
    ) throws(RouterError) {
        try register(pattern: pattern, origin: "\(fileID):\(line)", handler: handler)
    }

    /// Registers a handler for a pattern, with where it comes from for messages.
    func register(pattern: String, origin: String, handler: @escaping Handler) throws(RouterError) {
        let parsed = try routePattern(pattern)
        try state.withLock { (state) throws(RouterError) in
            try state.routes.insert(parsed, payload: handler, origin: origin)
        }
    }

    /// Replaces the handler of `pattern` (or registers it) in one step: a URL matched meanwhile finds the old handler
    /// or the new one, never none (a plugin upgrade).
    func replace(pattern: String, origin: String, handler: @escaping Handler) throws(RouterError) {
        let parsed = try routePattern(pattern)
        try state.withLock { (state) throws(RouterError) in
            _ = state.routes.remove(parsed)
            try state.routes.insert(parsed, payload: handler, origin: origin)
        }
    }

    /// Removes the route registered with exactly this pattern (parameter names included).
    ///
    /// - Parameter pattern: The pattern as registered (any spelling that parses to the same pattern).
    /// - Returns: `true` when a route was removed; `false` when none had this pattern or it does not parse.
    @discardableResult
    public func deregister(pattern: String) -> Bool {
        guard let parsed = try? routePattern(pattern) else { return false }
        return state.withLock { $0.routes.remove(parsed) != nil }
    }

    /// The registered patterns, normalised and sorted.
    public var registeredPatterns: [String] { state.withLock { $0.routes.patterns }.map(\.description) }

    /// The number of registered routes.
    public var routeCount: Int { state.withLock { $0.routes.count } }

    /// Sets the redirect table applied to every URL before matching.
    ///
    /// - Parameter table: The table, or `nil` for none.
    public func setRedirects(_ table: RedirectTable?) { state.withLock { $0.redirects = table } }

    /// Sets the handler for URLs that no route handles, or whose scheme the table does not know.
    ///
    /// - Parameter handler: Receives the URL and the reason, returns the output for it; `nil` removes it, so that
    ///   such URLs throw instead.
    public func setFallback(_ handler: FallbackHandler?) { state.withLock { $0.fallback = handler } }

    // MARK: - Matching and opening

    /// Finds the route for a URL (after redirects) without running anything.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The route's pattern and the merged parameters.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedURL``, ``RouterError/Code/unknownScheme``,
    ///   ``RouterError/Code/routeNotFound`` or a redirect error.
    public func match(_ url: String) throws(RouterError) -> RouteMatch {
        let redirects = state.withLock { $0.redirects }
        return try find(try ParsedRouteURL(try redirects?.resolve(url).url ?? url)).match
    }

    /// Tells whether opening a URL would reach a route (the fallback does not count).
    ///
    /// - Parameters:
    ///   - url: The URL; redirects apply first.
    ///   - mode: ``Router/MatchMode/exact`` (the default) or ``Router/MatchMode/prefix``.
    /// - Returns: `false` also when the URL is malformed or a redirect loops.
    public func canOpen(_ url: String, matching mode: Router.MatchMode = .exact) -> Bool {
        let redirects = state.withLock { $0.redirects }
        guard let target = try? redirects?.resolve(url).url ?? url, let parsed = try? ParsedRouteURL(target),
            scheme == nil || parsed.scheme == scheme
        else { return false }
        return canOpen(parsed, matching: mode)
    }

    /// Opens a URL: runs its route's handler, or the fallback when no route handles it.
    ///
    /// ```swift
    /// let screen: Screen = try table.open("app://user/42", userInfo: ["source": "push"])
    /// ```
    /// - Parameters:
    ///   - url: The URL; redirects apply first.
    ///   - userInfo: Extra values for the handler (``RouteRequest/userInfo``).
    /// - Returns: The handler's output.
    /// - Throws: A ``RouterError`` (malformed URL, unknown scheme, route not found without a fallback, redirect
    ///   loop, …) or whatever the handler throws.
    public func open(_ url: String, userInfo: [String: any Sendable] = [:]) throws -> Output {
        let (redirects, fallback) = state.withLock { ($0.redirects, $0.fallback) }
        let target = try redirects?.resolve(url).url ?? url
        let route: (match: RouteMatch, handler: Handler)
        do {
            route = try find(try ParsedRouteURL(target))
        } catch {
            guard let fallback, error.code == .routeNotFound || error.code == .unknownScheme else { throw error }
            return try fallback(RouteFallback(url: target, originalURL: url, reason: error, userInfo: userInfo))
        }
        return try route.handler(RouteRequest(route.match, url: target, originalURL: url, userInfo: userInfo))
    }

    // MARK: - Internals

    /// Whether a parsed URL (after redirects, of an accepted scheme) reaches a route.
    func canOpen(_ url: ParsedRouteURL, matching mode: Router.MatchMode) -> Bool {
        switch mode {
        case .exact:
            return (try? find(url)) != nil
        case .prefix:
            guard let urlScheme = url.scheme else { return false }
            return state.withLock { $0.routes.hasRoute(withPrefix: url.segments, scheme: urlScheme) }
        }
    }

    /// Looks a parsed URL up in the index under the lock; builds the match and the errors outside it.
    ///
    /// - Parameters:
    ///   - url: The parsed URL.
    ///   - hint: Appended to "not found" messages (the router's note on annotated routes).
    func find(_ url: ParsedRouteURL, hint: String = "") throws(RouterError) -> (match: RouteMatch, handler: Handler) {
        guard let urlScheme = url.scheme else {
            throw RouterError(.malformedURL, "'\(url.original)': expected 'scheme://host/path', found no scheme")
        }
        if let scheme, urlScheme != scheme {
            throw RouterError(
                .unknownScheme, "'\(url.original)': expected scheme '\(scheme)' on this router, found '\(urlScheme)'")
        }
        let (found, known, count) = state.withLock { state in
            (
                state.routes.match(scheme: urlScheme, segments: url.segments),
                state.routes.contains(scheme: urlScheme), state.routes.count
            )
        }
        guard let found else {
            if !known && scheme == nil {
                throw RouterError(
                    .unknownScheme,
                    "'\(url.original)': expected a scheme with registered routes, found '\(urlScheme)' with none"
                        + hint)
            }
            let path = url.segments.joined(separator: ", ")
            throw RouterError(
                .routeNotFound,
                "'\(url.original)': expected a registered pattern to match path [\(path)], found none among \(count) "
                    + "route\(count == 1 ? "" : "s")" + hint)
        }
        let pattern = found.route.text
        // Path captures win over query items of the same name. Without a query the captures are the values as
        // they are: a URL of thousands of components is not copied into a second dictionary.
        var values = found.captures
        if !url.queryItems.isEmpty {
            values = url.queryDictionary.merging(found.captures) { _, capture in capture }
        }
        let match = RouteMatch(
            url: url.original,
            pattern: pattern,
            parameters: RouteParameters(values, origin: "'\(url.original)' (route '\(pattern)')"),
            wildcardComponents: found.wildcardComponents,
            cost: found.cost
        )
        return (match, found.route.payload)
    }

    /// Gives a pattern the table's scheme, or checks that it has the table's scheme.
    func routePattern(_ text: String) throws(RouterError) -> RoutePattern {
        let pattern = try RoutePattern(text)
        switch (pattern.scheme, scheme) {
        case (nil, let own?):
            return pattern.withScheme(own)
        case (nil, nil):
            throw RouterError(
                .malformedPattern,
                "pattern '\(text)': expected 'scheme://…' on a router that accepts every scheme, found no scheme")
        case (let given?, let own?) where given != own:
            throw RouterError(
                .unknownScheme,
                "pattern '\(text)': expected scheme '\(own)' on this router, found '\(given)'; "
                    + "use Router.forScheme(\"\(given)\")")
        default:
            return pattern
        }
    }
}

extension RouteRequest {
    /// The request for a matched route.
    init(
        _ match: RouteMatch, url: String, originalURL: String, userInfo: [String: any Sendable],
        completion: RouteCompletion = .none
    ) {
        self.init(
            url: url, originalURL: originalURL, pattern: match.pattern, parameters: match.parameters,
            wildcardComponents: match.wildcardComponents, userInfo: userInfo, completion: completion)
    }
}
