import BeeHive

extension Router {
    /// A route handler that completes by itself: it receives the opener's completion and calls it when done, possibly
    /// later and from another thread (MGJRouter's handlers that call `routerParameters[MGJRouterParameterCompletion]`).
    public typealias CompletingHandler = @Sendable (RouteRequest, RouteCompletion) throws -> Void

    /// Registers a handler that owns the opener's completion (MGJRouter's `registerURLPattern:toHandler:` with a
    /// handler that calls `MGJRouterParameterCompletion` itself).
    ///
    /// The router does not call the completion after such a handler returns: the handler calls it, once, when its
    /// work is done. ``open(_:userInfo:completion:)`` returns `nil` for such a route (its result goes to the
    /// completion). Handlers registered with ``register(pattern:fileID:line:handler:)`` are unchanged: the router
    /// completes with their result.
    ///
    /// ```swift
    /// try router.register(pattern: "mgj://search/:query") { request, completion in
    ///     let query = request.parameters["query"] ?? ""
    ///     searchQueue.async { completion(search(query)) }   // after open has returned
    /// }
    /// try router.open("mgj://search/bee") { results in show(results) }
    /// ```
    ///
    /// - Parameters:
    ///   - pattern: The pattern, as for ``register(pattern:fileID:line:handler:)``.
    ///   - fileID: Where the route is registered, named by a later duplicate's error (default: the call site).
    ///   - line: The line of the registration.
    ///   - completingHandler: Runs (with no lock held) each time a matching URL is opened; calls the completion
    ///     when done. If it throws, `open` throws and the completion is not called by the router.
    /// - Throws: The same errors as ``register(pattern:fileID:line:handler:)``.
    public func register(
        pattern: String, fileID: String = #fileID, line: Int = #line,
        completingHandler: @escaping CompletingHandler
    ) throws(RouterError) {
        try table.register(pattern: pattern, origin: "\(fileID):\(line)") { request in
            request.completion.handOver()
            try completingHandler(request, request.completion)
            return nil
        }
    }
}
