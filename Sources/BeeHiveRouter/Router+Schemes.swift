import BeeHive

/// The process-wide routers: one global router and one router per scheme (BHRouter's `routerForScheme:`).
let schemeRouters = LockedValue<[String: Router]>([:])

extension Router {
    /// The process-wide router that accepts every scheme.
    ///
    /// Routes registered here need a full `scheme://` pattern. Prefer ``forScheme(_:)`` when an app answers to
    /// several schemes (a buyer and a seller app in one binary), and ``router(forURL:)`` to pick the right one.
    public static let global = Router()

    /// The process-wide router for a scheme, made on first use.
    ///
    /// ```swift
    /// let shop = Router.forScheme("shop")
    /// try shop.register(pattern: "item/:id") { request in ItemScreen(id: try request.parameters.int("id")) }
    /// try Router.router(forURL: "shop://item/9").open("shop://item/9")
    /// ```
    ///
    /// - Parameter scheme: The scheme, case-insensitive.
    /// - Returns: The same router for every call with this scheme, until ``removeRouter(forScheme:)``.
    public static func forScheme(_ scheme: String) -> Router {
        importSharedDeclarations()
        return schemeRouter(scheme)
    }

    /// The process-wide router for a scheme, without taking annotated routes first.
    static func schemeRouter(_ scheme: String) -> Router {
        let key = scheme.lowercased()
        return schemeRouters.withLock { routers in
            if let existing = routers[key] { return existing }
            let router = Router(scheme: key)
            routers[key] = router
            return router
        }
    }

    /// The scheme router for a URL's scheme if one was made with ``forScheme(_:)``, otherwise ``global``.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The router that should open the URL.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedURL`` when the URL has no valid scheme.
    public static func router(forURL url: String) throws(RouterError) -> Router {
        importSharedDeclarations()
        let parsed = try ParsedRouteURL(url)
        return schemeRouters.withLock { routers in parsed.scheme.flatMap { routers[$0] } } ?? global
    }

    /// Forgets the process-wide router for a scheme (BHRouter's `unRegisterRouterForScheme:`).
    ///
    /// - Parameter scheme: The scheme, case-insensitive.
    /// - Returns: `true` when a router was forgotten.
    @discardableResult
    public static func removeRouter(forScheme scheme: String) -> Bool {
        schemeRouters.withLock { $0.removeValue(forKey: scheme.lowercased()) } != nil
    }

    /// The schemes that have a process-wide router, sorted.
    public static var schemes: [String] {
        schemeRouters.withLock { $0.keys.sorted() }
    }
}
