import BeeHive
import BeeHiveRouter

extension Mediator {
    /// Calls an action named by a URL `scheme://<target>/<action>?k=v` (CTMediator's `performActionWithUrl:`).
    ///
    /// The redirect table (``setRedirects(_:)``) rewrites the URL first. Query items become string parameters,
    /// percent-decoded. Targets are not cached for URL calls.
    ///
    /// ```swift
    /// try mediator.perform(url: "app://User/profile?id=42", origin: .local)
    /// ```
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - origin: ``MediatorOrigin/remote`` when the URL came from outside the process; then only
    ///     remote-callable actions are reachable. Prefer ``handleRemoteURL(_:)`` for that case.
    /// - Returns: The action's result.
    /// - Throws: ``MediatorError`` with code ``MediatorError/Code/malformedURL``,
    ///   ``MediatorError/Code/unknownScheme``, ``MediatorError/Code/redirectFailed``, or the errors of
    ///   ``perform(target:action:params:cacheTarget:origin:)``.
    @discardableResult
    public func perform(url: String, origin: MediatorOrigin) throws -> Any? {
        let redirects = state.withLock { $0.redirects }
        let target: String
        do {
            target = try redirects?.resolve(url).url ?? url
        } catch {
            let code: MediatorError.Code = error.code == .malformedURL ? .malformedURL : .redirectFailed
            throw MediatorError(code, error.message, underlying: error)
        }
        let parsed: ParsedRouteURL
        do {
            parsed = try ParsedRouteURL(target)
        } catch {
            throw MediatorError(.malformedURL, error.message, underlying: error)
        }
        if let scheme, parsed.scheme != scheme {
            throw MediatorError(
                .unknownScheme,
                "'\(target)': expected scheme '\(scheme)', found '\(parsed.scheme ?? "")'"
            )
        }
        guard parsed.segments.count == 2 else {
            throw MediatorError(
                .malformedURL,
                "'\(target)': expected 'scheme://<target>/<action>?k=v', found \(parsed.segments.count) path "
                    + "component\(parsed.segments.count == 1 ? "" : "s")"
            )
        }
        return try perform(
            target: parsed.segments[0],
            action: parsed.segments[1],
            params: parsed.queryDictionary,
            cacheTarget: false,
            origin: origin,
            url: target
        )
    }

    /// Calls an action named by a URL that came from outside the process (another app, a push, a web page).
    ///
    /// Only actions marked remote-callable (``MediatorAction/remote(_:_:)-(_,MediatorAction<Target>.Body)``) are
    /// reachable; any other action is refused with ``MediatorError/Code/remoteCallRefused`` before it or any
    /// handler runs.
    ///
    /// - Parameter url: The URL, `scheme://<target>/<action>?k=v`.
    /// - Returns: The action's result.
    /// - Throws: The errors of ``perform(url:origin:)``.
    @discardableResult
    public func handleRemoteURL(_ url: String) throws -> Any? {
        try perform(url: url, origin: .remote)
    }
}
