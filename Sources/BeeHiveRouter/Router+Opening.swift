import BeeHive

extension Router {
    // MARK: - Matching

    /// Finds the registered route for a URL (after redirects) without running anything.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The route's pattern and the merged parameters.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedURL``, ``RouterError/Code/unknownScheme``,
    ///   ``RouterError/Code/routeNotFound`` or a redirect error.
    public func match(_ url: String) throws(RouterError) -> RouteMatch {
        let redirects = state.withLock { $0.settings.redirects }
        let target = try redirects?.resolve(url).url ?? url
        return try matchRoute(try ParsedRouteURL(target))
    }

    /// Tells whether opening a URL would reach a route or a service (the fallback does not count).
    ///
    /// Unlike MGJRouter's `canOpenURL:`, which always answered `true`, this matches the routes as opening does.
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
        let settings = state.withLock { $0.settings }
        guard let target = try? settings.redirects?.resolve(url).url ?? url,
            let parsed = try? ParsedRouteURL(target),
            acceptsScheme(of: parsed)
        else { return false }
        if let form = pathComponentForm(of: parsed, settings) {
            return canOpenPathComponents(parsed, form: form, settings)
        }
        if let resolver = settings.serviceResolver, let call = try? ServiceCall(parsed, host: settings.serviceCallHost)
        {
            guard let handler = try? resolver.resolve(call.service) else { return false }
            return handler.canHandleAction(call.action)
        }
        return table.canOpen(parsed, matching: mode)
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
    ///   - completion: Called once with the result after the handler returns successfully (not on error), unless
    ///     the handler called it itself (``RouteRequest/completion``); a handler registered with
    ///     ``register(pattern:fileID:line:completingHandler:)`` calls it when its work is done, possibly later.
    /// - Returns: The handler's result.
    /// - Throws: A ``RouterError`` (malformed URL, unknown scheme, route not found without a fallback, redirect
    ///   loop, …) or whatever the handler throws.
    @discardableResult
    public func open(
        _ url: String,
        userInfo: [String: any Sendable] = [:],
        completion: (@Sendable (Any?) -> Void)? = nil
    ) throws -> Any? {
        let routeCompletion = completion.map { RouteCompletion($0) } ?? .none
        let result = try dispatch(url, userInfo: userInfo, completion: routeCompletion)
        routeCompletion.finish(with: result)
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
            throw RouterError(
                .typeMismatch, "opening '\(url)': expected a result of type \(Value.self), found \(found)")
        }
        return value
    }

    // MARK: - Internals

    func matchRoute(_ url: ParsedRouteURL) throws(RouterError) -> RouteMatch {
        try findRoute(url).match
    }

    /// Looks a parsed URL up in the routes; copies out the match and its handler.
    private func findRoute(_ url: ParsedRouteURL) throws(RouterError) -> (match: RouteMatch, handler: Handler) {
        try table.find(url, hint: Self.declaredRoutesHint)
    }

    /// Resolves and runs a URL; every user closure runs after the lock is released, and only "nothing handles
    /// this URL" errors raised by the router itself (never errors thrown by handlers) reach the fallback.
    private func dispatch(
        _ url: String, userInfo: [String: any Sendable], completion: RouteCompletion = .none
    ) throws -> Any? {
        let settings = state.withLock { $0.settings }
        let target = try settings.redirects?.resolve(url).url ?? url
        let parsed = try ParsedRouteURL(target)

        func notHandled(_ reason: RouterError) throws -> Any? {
            guard let fallback = settings.fallback else { throw reason }
            return try fallback(RouteFallback(url: target, originalURL: url, reason: reason, userInfo: userInfo))
        }

        if acceptsScheme(of: parsed), let form = pathComponentForm(of: parsed, settings) {
            do {
                return try openPathComponents(parsed, form: form, settings)
            } catch let error as RouterError where error.code == .unknownPathComponent {
                return try notHandled(error)
            }
        }
        if let resolver = settings.serviceResolver, acceptsScheme(of: parsed),
            let call = try ServiceCall(parsed, host: settings.serviceCallHost)
        {
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
        return try route.handler(
            RouteRequest(route.match, url: target, originalURL: url, userInfo: userInfo, completion: completion))
    }
}
