import BeeHive

/// A URL router: patterns such as `app://user/:id` map to handlers that run when a matching URL is opened.
///
/// Routes are indexed by scheme, then by path position (the host is the first component). At each component a
/// literal beats a `:param`, which beats a `~` wildcard; when the literal's routes dead-end deeper down, the
/// `:param`'s are tried, then the `~` (see ``RoutePattern``).
///
/// Matching a URL of `n` components costs at most `n` dictionary probes, one per component. When a component narrows the
/// routes to a few (the host usually does), only those few are compared with the URL: a match costs the same with
/// 10 or 10,000 routes. When none does (many overlapping `:param` patterns), the routes each component allows are
/// intersected as bit sets of `⌈R/64⌉` 64-bit words, `R` being the routes of the URL's scheme. So whatever the
/// patterns, a match costs at most `O(n · ⌈R/64⌉)`: linear in the URL, never the `O(n · R)` of a backtracking walk
/// (no index bounds it independently of `R` in general without memory exponential in the patterns' length). A
/// "staircase" of 1,024 overlapping patterns matched by a 1,024-component URL, about 0.12 s for a backtracking walk
/// (half a million tree nodes), takes about 0.4 ms (`route/staircase/1024/…` in the benchmarks).
///
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
/// Results are `Any?`, as MGJRouter's and BHRouter's are. Where the handlers' output has one type, use a
/// ``RouteTable`` of that type instead: the compiler then checks every handler, and opening needs no cast.
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
    public typealias Handler = RouteTable<Any?>.Handler

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

    /// What opening a URL needs besides the routes; copied out of the lock as one value.
    struct Settings: Sendable {
        var serviceResolver: ServiceActionResolver?
        var serviceCallHost = Router.defaultServiceCallHost
        var redirects: RedirectTable?
        var fallback: FallbackHandler?
        /// BHRouter's path components by key.
        var pathComponents: [String: PathComponent] = [:]
        /// The hive of the register form (and of the call form without a resolver).
        var pathComponentHive: Hive?
    }

    struct State: Sendable {
        var settings = Settings()
    }

    /// The lower-cased scheme this router accepts, or `nil` for a router that accepts every scheme.
    public let scheme: String?

    let state: LockedValue<State>
    /// The routes: BeeHive's router is a table of untyped routes with service calls, path components,
    /// redirects and a fallback around it.
    let table: RouteTable<Any?>

    /// Makes an independent router, for example for a test.
    ///
    /// - Parameters:
    ///   - scheme: The only scheme the router accepts (case-insensitive), or `nil` to accept every scheme.
    ///   - serviceResolver: Resolves service names in `scheme://call.service/<Service>.<action>` URLs.
    public init(scheme: String? = nil, serviceResolver: ServiceActionResolver? = nil) {
        self.scheme = scheme?.lowercased()
        table = RouteTable(scheme: scheme)
        var state = State()
        state.settings.serviceResolver = serviceResolver
        self.state = LockedValue(state)
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
    ///   - fileID: Where the route is registered, named by a later duplicate's error (default: the call site).
    ///   - line: The line of the registration.
    ///   - handler: Runs (with no lock held) each time a matching URL is opened.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedPattern``,
    ///   ``RouterError/Code/unknownScheme`` (the pattern's scheme is not the router's), or
    ///   ``RouterError/Code/duplicateRoute`` (a pattern matching the same URLs is registered; the message names
    ///   where both were registered).
    public func register(
        pattern: String, fileID: String = #fileID, line: Int = #line, handler: @escaping Handler
    ) throws(RouterError) {
        try table.register(pattern: pattern, origin: "\(fileID):\(line)", handler: handler)
    }

    /// Registers a handler type for a pattern; a fresh instance handles each opened URL.
    ///
    /// This is how routes named by annotation records (`BH_ROUTE("app://user/:id", App.UserRoute)`) are
    /// registered once the registry has found the type.
    ///
    /// - Parameters:
    ///   - pattern: The pattern, for example `app://user/:id`.
    ///   - handlerType: The type to instantiate with `init()`.
    ///   - fileID: Where the route is registered, named by a later duplicate's error (default: the call site).
    ///   - line: The line of the registration.
    /// - Throws: The same errors as ``register(pattern:fileID:line:handler:)``.
    public func register(
        pattern: String, handlerType: any RouteHandler.Type, fileID: String = #fileID, line: Int = #line
    ) throws(RouterError) {
        try register(pattern: pattern, handlerType: handlerType, origin: "\(fileID):\(line)")
    }

    /// Registers a handler type, with where it comes from for messages (a record's source for declared routes); with
    /// `replacing`, takes the place of the route of the same pattern in one step.
    func register(
        pattern: String, handlerType: any RouteHandler.Type, origin: String, replacing: Bool = false
    ) throws(RouterError) {
        let handler: Handler = { request in try handlerType.init().handle(request) }
        if replacing {
            try table.replace(pattern: pattern, origin: origin, handler: handler)
        } else {
            try table.register(pattern: pattern, origin: origin, handler: handler)
        }
    }

    /// Removes the route registered with exactly this pattern (parameter names included).
    ///
    /// - Parameter pattern: The pattern as registered (any spelling that parses to the same pattern).
    /// - Returns: `true` when a route was removed; `false` when none had this pattern or it does not parse.
    @discardableResult
    public func deregister(pattern: String) -> Bool {
        table.deregister(pattern: pattern)
    }

    /// The registered patterns, normalised and sorted.
    public var registeredPatterns: [String] {
        table.registeredPatterns
    }

    /// The number of registered routes.
    public var routeCount: Int {
        table.routeCount
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
            state.settings.serviceResolver = resolver
            state.settings.serviceCallHost = host
        }
    }

    /// Sets the redirect table applied to every URL before dispatch (and by ``canOpen(_:matching:)``).
    ///
    /// - Parameter table: The table, or `nil` for none.
    public func setRedirects(_ table: RedirectTable?) {
        state.withLock { $0.settings.redirects = table }
    }

    /// Sets the handler for URLs that no route or service handles, or whose scheme the router does not know.
    ///
    /// - Parameter handler: Receives the URL and the reason, returns the result of opening it (for example a
    ///   web screen); `nil` removes it, so that such URLs throw instead.
    public func setFallback(_ handler: FallbackHandler?) {
        state.withLock { $0.settings.fallback = handler }
    }

    // MARK: - Internals

    func acceptsScheme(of url: ParsedRouteURL) -> Bool {
        scheme == nil || url.scheme == scheme
    }
}
