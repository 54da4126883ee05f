import Synchronization

/// A URL router: patterns such as `app://user/:id` map to handlers that run when a matching URL is opened.
///
/// Routes live in a tree keyed by scheme, then by path component (the host is the first component), so opening
/// a URL costs the same with 10 or 10,000 routes. At each component a literal beats a `:param`, which beats a
/// `~` wildcard; a branch that dead-ends deeper down falls back to the next one (see ``RoutePattern``).
/// Parameterised routes that differ only in parameter names (`app://search/:query` and `app://search/:keyword`)
/// are the same route: the second registration fails with ``RouterError/Code/duplicateRoute``. Routes that share
/// a parameter position and continue differently (`…/:query/results`, `…/:keyword/suggest`) both work, each
/// with its own names.
///
/// Opening a URL runs, in order: the ``RedirectTable`` (if set), a BeeHive service call
/// `scheme://call.service/<Service>.<action>?k=v` (if a ``ServiceActionResolver`` is set), the routes, and the
/// fallback handler (if set) for a URL nothing handles. Query items are merged into the parameters, and a path
/// capture wins over a query item of the same name.
///
/// Every method may be called from any thread. Handlers, completions, resolvers and fallbacks are always called
/// with no lock held, so they may use the router themselves.
///
/// ```swift
/// let router = Router.forScheme("app")
/// try router.register(pattern: "app://user/:id") { request in
///     UserScreen(id: try request.parameters.int("id"))
/// }
/// router.canOpen("app://user/42")                       // true
/// let screen = try router.object(forURL: "app://user/42?tab=posts", as: UserScreen.self)
/// let link = try Router.generateURL(pattern: "app://user/:id", parameters: ["id": 42])  // "app://user/42"
/// ```
public final class Router: Sendable {
    /// A route handler closure: receives the request, returns the route's result (or `nil`).
    public typealias Handler = @Sendable (RouteRequest) throws -> Any?

    /// A fallback handler closure for URLs no route handles; see ``setFallback(_:)``.
    public typealias FallbackHandler = @Sendable (RouteFallback) throws -> Any?

    /// How ``canOpen(_:matching:)`` compares a URL with the registered routes.
    public enum MatchMode: Sendable, Hashable {
        /// Some route (or service, or redirect target) handles exactly this URL.
        case exact
        /// Some registered route's path begins with this URL's path (or a `~` route covers it).
        case prefix
    }

    /// The host that marks BeeHive service calls, unless changed with ``setServiceResolver(_:host:)``.
    public static let defaultServiceCallHost = "call.service"

    struct State: Sendable {
        var routes = RouteTrie<Handler>()
        var serviceResolver: ServiceActionResolver?
        var serviceCallHost = Router.defaultServiceCallHost
        var redirects: RedirectTable?
        var fallback: FallbackHandler?
    }

    /// The lower-cased scheme this router accepts, or `nil` for a router that accepts every scheme.
    public let scheme: String?

    let state: Mutex<State>

    /// Makes an independent router, for example for a test.
    ///
    /// - Parameters:
    ///   - scheme: The only scheme the router accepts (case-insensitive), or `nil` to accept every scheme.
    ///   - serviceResolver: Resolves service names in `scheme://call.service/<Service>.<action>` URLs.
    public init(scheme: String? = nil, serviceResolver: ServiceActionResolver? = nil) {
        self.scheme = scheme?.lowercased()
        var state = State()
        state.serviceResolver = serviceResolver
        self.state = Mutex(state)
    }

    // MARK: - Registration

    /// Registers a handler closure for a pattern.
    ///
    /// ```swift
    /// try router.register(pattern: "app://user/:id") { request in
    ///     UserScreen(id: try request.parameters.int("id"))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - pattern: The pattern, for example `app://user/:id`; on a scheme router `user/:id` is accepted too.
    ///   - handler: Runs (with no lock held) each time a matching URL is opened.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedPattern``,
    ///   ``RouterError/Code/unknownScheme`` (the pattern's scheme is not the router's), or
    ///   ``RouterError/Code/duplicateRoute`` (a pattern matching the same URLs is registered).
    public func register(pattern: String, handler: @escaping Handler) throws(RouterError) {
        let parsed = try routePattern(pattern)
        try state.withLock { (state) throws(RouterError) in
            try state.routes.insert(parsed, payload: handler)
        }
    }

    /// Registers a handler type for a pattern; a fresh instance handles each opened URL.
    ///
    /// This is how routes named by annotation records (`BH_ROUTE("app://user/:id", App.UserRoute)`) are
    /// registered once the registry has found the type.
    ///
    /// - Parameters:
    ///   - pattern: The pattern, for example `app://user/:id`.
    ///   - handlerType: The type to instantiate with `init()`.
    /// - Throws: The same errors as ``register(pattern:handler:)``.
    public func register(pattern: String, handlerType: any RouteHandler.Type) throws(RouterError) {
        try register(pattern: pattern) { request in
            try handlerType.init().handle(request)
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
    public var registeredPatterns: [String] {
        state.withLock { $0.routes.patterns }.map(\.description)
    }

    /// The number of registered routes.
    public var routeCount: Int {
        state.withLock { $0.routes.count }
    }

    // MARK: - Configuration

    /// Sets the resolver for service call URLs `scheme://<host>/<Service>.<action>?k=v`.
    ///
    /// - Parameters:
    ///   - resolver: Finds the ``ActionHandling`` object for a service name; `nil` turns service calls off (such
    ///     URLs are then matched against the routes like any other).
    ///   - host: The host that marks a service call.
    public func setServiceResolver(_ resolver: ServiceActionResolver?, host: String = Router.defaultServiceCallHost) {
        state.withLock { state in
            state.serviceResolver = resolver
            state.serviceCallHost = host
        }
    }

    /// Sets the redirect table applied to every URL before dispatch (and by ``canOpen(_:matching:)``).
    ///
    /// - Parameter table: The table, or `nil` for none.
    public func setRedirects(_ table: RedirectTable?) {
        state.withLock { $0.redirects = table }
    }

    /// Sets the handler for URLs that no route or service handles, or whose scheme the router does not know.
    ///
    /// - Parameter handler: Receives the URL and the reason, returns the result of opening it (for example a
    ///   web screen); `nil` removes it, so that such URLs throw instead.
    public func setFallback(_ handler: FallbackHandler?) {
        state.withLock { $0.fallback = handler }
    }

    // MARK: - Matching

    /// Finds the registered route for a URL (after redirects) without running anything.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The route's pattern and the merged parameters.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedURL``, ``RouterError/Code/unknownScheme``,
    ///   ``RouterError/Code/routeNotFound`` or a redirect error.
    public func match(_ url: String) throws(RouterError) -> RouteMatch {
        let redirects = state.withLock { $0.redirects }
        let target = try redirects?.resolve(url).url ?? url
        return try matchRoute(try ParsedRouteURL(target))
    }

    /// Tells whether opening a URL would reach a route or a service (the fallback does not count).
    ///
    /// Unlike MGJRouter's `canOpenURL:`, which always answered `true`, this walks the same tree as opening does.
    ///
    /// ```swift
    /// router.canOpen("app://user/42")                    // exact: a route handles it
    /// router.canOpen("app://user", matching: .prefix)    // prefix: some route starts with app://user
    /// ```
    ///
    /// - Parameters:
    ///   - url: The URL; redirects apply first.
    ///   - mode: ``MatchMode/exact`` (the default) or ``MatchMode/prefix``.
    /// - Returns: `false` also when the URL is malformed or a redirect loops.
    public func canOpen(_ url: String, matching mode: MatchMode = .exact) -> Bool {
        let config = state.withLock { ($0.redirects, $0.serviceResolver, $0.serviceCallHost) }
        guard let target = try? config.0?.resolve(url).url ?? url,
            let parsed = try? ParsedRouteURL(target),
            acceptsScheme(of: parsed)
        else { return false }
        if let resolver = config.1, let call = try? ServiceCall(parsed, host: config.2) {
            guard let handler = try? resolver.resolve(call.service) else { return false }
            return handler.canHandleAction(call.action)
        }
        switch mode {
        case .exact:
            return (try? matchRoute(parsed)) != nil
        case .prefix:
            guard let scheme = parsed.scheme else { return false }
            return state.withLock { $0.routes.hasRoute(withPrefix: parsed.segments, scheme: scheme) }
        }
    }

    // MARK: - Opening

    /// Opens a URL: runs its handler, then the completion with the handler's result.
    ///
    /// ```swift
    /// try router.open("app://user/42", userInfo: ["source": "push"]) { screen in
    ///     present(screen)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - url: The URL; redirects apply first, then service calls, routes and the fallback.
    ///   - userInfo: Extra values for the handler (``RouteRequest/userInfo``).
    ///   - completion: Called once with the result after the handler returns successfully (not on error).
    /// - Returns: The handler's result.
    /// - Throws: A ``RouterError`` (malformed URL, unknown scheme, route not found without a fallback, redirect
    ///   loop, …) or whatever the handler throws.
    @discardableResult
    public func open(
        _ url: String,
        userInfo: [String: any Sendable] = [:],
        completion: (@Sendable (Any?) -> Void)? = nil
    ) throws -> Any? {
        let result = try dispatch(url, userInfo: userInfo)
        completion?(result)
        return result
    }

    /// Opens a URL and returns its handler's result: MGJRouter's `objectForURL:`.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - userInfo: Extra values for the handler.
    /// - Returns: The handler's result, which may be `nil`.
    /// - Throws: The same errors as ``open(_:userInfo:completion:)``.
    public func object(forURL url: String, userInfo: [String: any Sendable] = [:]) throws -> Any? {
        try dispatch(url, userInfo: userInfo)
    }

    /// Opens a URL and returns its handler's result as a given type.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - type: The expected result type.
    ///   - userInfo: Extra values for the handler.
    /// - Returns: The handler's result.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/typeMismatch`` when the result is `nil` or of
    ///   another type, and the same errors as ``open(_:userInfo:completion:)``.
    public func object<Value>(
        forURL url: String,
        as type: Value.Type,
        userInfo: [String: any Sendable] = [:]
    ) throws -> Value {
        let result = try dispatch(url, userInfo: userInfo)
        guard let value = result as? Value else {
            let found = result.map { "\(Swift.type(of: $0)) (\($0))" } ?? "nil"
            throw RouterError(.typeMismatch, "opening '\(url)': expected a result of type \(Value.self), found \(found)")
        }
        return value
    }

    // MARK: - Internals

    /// Gives a pattern the router's scheme, or checks that it has the router's scheme.
    func routePattern(_ text: String) throws(RouterError) -> RoutePattern {
        let pattern = try RoutePattern(text)
        switch (pattern.scheme, scheme) {
        case (nil, let own?):
            return pattern.withScheme(own)
        case (nil, nil):
            throw RouterError(
                .malformedPattern,
                "pattern '\(text)': expected 'scheme://…' on a router that accepts every scheme, found no scheme"
            )
        case (let given?, let own?) where given != own:
            throw RouterError(
                .unknownScheme,
                "pattern '\(text)': expected scheme '\(own)' on this router, found '\(given)'; "
                    + "use Router.forScheme(\"\(given)\")"
            )
        default:
            return pattern
        }
    }

    func acceptsScheme(of url: ParsedRouteURL) -> Bool {
        scheme == nil || url.scheme == scheme
    }

    func matchRoute(_ url: ParsedRouteURL) throws(RouterError) -> RouteMatch {
        try findRoute(url).match
    }

    /// Looks a parsed URL up in the tree under the lock and copies out the match and its handler.
    private func findRoute(_ url: ParsedRouteURL) throws(RouterError) -> (match: RouteMatch, handler: Handler) {
        guard let urlScheme = url.scheme else {
            throw RouterError(.malformedURL, "'\(url.original)': expected 'scheme://host/path', found no scheme")
        }
        if let scheme, urlScheme != scheme {
            throw RouterError(
                .unknownScheme,
                "'\(url.original)': expected scheme '\(scheme)' on this router, found '\(urlScheme)'"
            )
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
                )
            }
            let path = url.segments.joined(separator: ", ")
            throw RouterError(
                .routeNotFound,
                "'\(url.original)': expected a registered pattern to match path [\(path)], found none among \(count) "
                    + "route\(count == 1 ? "" : "s")"
            )
        }
        let pattern = found.terminal.pattern.description
        var values = url.queryDictionary
        values.merge(found.captures) { _, capture in capture }
        let match = RouteMatch(
            url: url.original,
            pattern: pattern,
            parameters: RouteParameters(values, origin: "'\(url.original)' (route '\(pattern)')"),
            wildcardComponents: found.wildcardComponents,
            visitedNodeCount: found.visitedNodeCount
        )
        return (match, found.terminal.payload)
    }

    /// Resolves and runs a URL; every user closure runs after the lock is released, and only "nothing handles
    /// this URL" errors raised by the router itself (never errors thrown by handlers) reach the fallback.
    private func dispatch(_ url: String, userInfo: [String: any Sendable]) throws -> Any? {
        let config = state.withLock { ($0.redirects, $0.serviceResolver, $0.serviceCallHost, $0.fallback) }
        let target = try config.0?.resolve(url).url ?? url
        let parsed = try ParsedRouteURL(target)

        func notHandled(_ reason: RouterError) throws -> Any? {
            guard let fallback = config.3 else { throw reason }
            return try fallback(RouteFallback(url: target, originalURL: url, reason: reason, userInfo: userInfo))
        }

        if let resolver = config.1, acceptsScheme(of: parsed), let call = try ServiceCall(parsed, host: config.2) {
            guard let handler = try resolver.resolve(call.service) else {
                return try notHandled(
                    RouterError(
                        .serviceNotFound,
                        "'\(target)': expected a service named '\(call.service)', found none in the resolver"
                    )
                )
            }
            return try handler.handleAction(call.action, parameters: call.parameters)
        }

        let route: (match: RouteMatch, handler: Handler)
        do {
            route = try findRoute(parsed)
        } catch {
            guard error.code == .routeNotFound || error.code == .unknownScheme else { throw error }
            return try notHandled(error)
        }
        let request = RouteRequest(
            url: target,
            originalURL: url,
            pattern: route.match.pattern,
            parameters: route.match.parameters,
            wildcardComponents: route.match.wildcardComponents,
            userInfo: userInfo
        )
        return try route.handler(request)
    }
}
