import BeeHive

/// The shared hive's route declarations that the process-wide routers hold.
private struct ImportedRoutes {
    /// The hive's route generation last imported.
    var generation = -1
    /// Each declaration registered, with the router and pattern to remove it by when its image goes.
    var registered: [RegistrationSource: (router: Router, pattern: String)] = [:]
    /// Declarations that failed, with the message reported, so that a retry that fails the same way is quiet.
    var failed: [RegistrationSource: String] = [:]
}

/// Held while routes are imported, so that concurrent imports never interleave.
private let importedRoutes = LockedValue(ImportedRoutes())

extension Router {
    /// Forgets every process-wide router and every route of ``global`` (BHRouter's `unRegisterAllRouters`): the
    /// reset of the shared routing state, for tests and for programs that rebuild their routes.
    ///
    /// Routes declared by annotation records join their schemes' routers again on the next use of a router
    /// (once the shared hive is in use). Routers made with `Router(scheme:)` are not touched, and neither are the
    /// global router's settings (resolver, redirects, fallback, path components).
    ///
    /// ```swift
    /// Router.removeAllRouters()
    /// #expect(Router.schemes.isEmpty)
    /// ```
    public static func removeAllRouters() {
        importedRoutes.withLock { imported in
            imported = ImportedRoutes()
            schemeRouters.withLock { $0.removeAll() }
        }
        for pattern in global.registeredPatterns { global.deregister(pattern: pattern) }
    }

    /// Registers routes declared by annotation records (`BH_ROUTE`) in `hive`: each on the process-wide
    /// router of its pattern's scheme (``forScheme(_:)``), with its handler type found by name.
    ///
    /// Once the shared hive is in use, its routes need no call: ``forScheme(_:)`` and ``router(forURL:)`` bring the
    /// routers up to date with its declarations before they answer (after `Hive.rescan()` too): routes of images
    /// loaded since are added, routes of images unloaded since are removed. A router never creates the shared hive
    /// itself (that would make `Hive.bootstrap` fail): a program that uses nothing else of the hive calls this once,
    /// with `.shared`, after bootstrapping. Call it too for a hive of your own.
    ///
    /// ```swift
    /// try Hive.bootstrap(.init(logger: logger))       // optional
    /// Router.registerDeclaredRoutes(from: .shared)    // BH_ROUTE records join their schemes' routers
    /// try Router.router(forURL: "app://user/42").open("app://user/42")
    /// ```
    /// - Parameter hive: The hive whose route declarations to register.
    /// - Returns: The problems found (unknown or non-handler types, bad patterns, duplicates), each also
    ///   recorded in the hive's diagnostics with the record's source.
    @discardableResult
    public static func registerDeclaredRoutes(from hive: Hive) -> [Diagnostic] {
        // The shared hive's routes are followed (added and withdrawn with their images), not copied once.
        if hive === Hive.sharedIfCreated { return importSharedDeclarations() }
        var problems: [Diagnostic] = []
        for declaration in hive.routeDeclarations {
            do throws(HiveError) {
                try register(declaration)
            } catch {
                problems.append(Diagnostic(.error, error))
            }
        }
        hive.record(problems)
        return problems
    }

    /// Brings the process-wide routers up to date with the shared hive's route declarations, if the shared hive
    /// exists: using a router never creates it (so `Hive.bootstrap` stays possible). Cheap when nothing changed:
    /// one comparison of generations.
    /// - Returns: The problems of this import (also recorded in the hive's diagnostics).
    @discardableResult
    static func importSharedDeclarations() -> [Diagnostic] {
        guard let hive = Hive.sharedIfCreated else { return [] }
        let generation = hive.routeGeneration
        guard importedRoutes.withLock({ $0.generation }) != generation else { return [] }
        let problems: [Diagnostic] = importedRoutes.withLock { imported in
            let (generation, declarations) = hive.versionedRouteDeclarations
            guard imported.generation != generation else { return [] }
            imported.generation = generation
            let current = Set(declarations.map(\.source))
            // A withdrawn route whose pattern a new declaration takes (a plugin upgrade) is replaced in one step, so
            // that a URL opened meanwhile finds the old handler or the new one; the others are removed first.
            var withdrawn: [String: (router: Router, pattern: String)] = [:]
            for (source, route) in imported.registered where !current.contains(source) {
                withdrawn[route.pattern] = route
                imported.registered[source] = nil
            }
            let taken = Set(declarations.filter { imported.registered[$0.source] == nil }.map(\.pattern))
            for (pattern, route) in withdrawn where !taken.contains(pattern) {
                route.router.deregister(pattern: route.pattern)
                withdrawn[pattern] = nil
            }
            imported.failed = imported.failed.filter { current.contains($0.key) }
            var problems: [Diagnostic] = []
            for declaration in declarations where imported.registered[declaration.source] == nil {
                do throws(HiveError) {
                    let replaced = withdrawn.removeValue(forKey: declaration.pattern)
                    let router = try register(declaration, replacing: replaced)
                    imported.registered[declaration.source] = (router, declaration.pattern)
                    imported.failed[declaration.source] = nil
                } catch {
                    guard imported.failed[declaration.source] != error.message else { continue }
                    imported.failed[declaration.source] = error.message
                    problems.append(Diagnostic(.error, error))
                }
            }
            for route in withdrawn.values { route.router.deregister(pattern: route.pattern) }
            return problems
        }
        hive.record(problems)
        return problems
    }

    /// Registers one declared route on the process-wide router of its scheme; returns that router.
    /// With `replacing` (a withdrawn route of the same pattern on the same router), takes its place in one step.
    @discardableResult
    private static func register(
        _ declaration: RouteDeclaration, replacing: (router: Router, pattern: String)? = nil
    ) throws(HiveError) -> Router {
        let handler: any RouteHandler.Type
        do throws(HiveError) {
            handler = try handlerType(of: declaration)
        } catch {
            if let replacing { replacing.router.deregister(pattern: replacing.pattern) }
            throw error
        }
        do throws(RouterError) {
            let pattern = try RoutePattern(declaration.pattern)
            let router = pattern.scheme.map(schemeRouter) ?? global
            if let replacing, replacing.router !== router { replacing.router.deregister(pattern: replacing.pattern) }
            try router.register(
                pattern: declaration.pattern, handlerType: handler, origin: "\(declaration.source)",
                replacing: replacing?.router === router)
            return router
        } catch {
            throw HiveError(
                error.code == .duplicateRoute ? .duplicateRegistration : .malformedRecord, "\(error.message)",
                source: declaration.source)
        }
    }

    /// The handler type a declaration names, found by name and checked to be a ``RouteHandler``.
    private static func handlerType(of declaration: RouteDeclaration) throws(HiveError) -> any RouteHandler.Type {
        guard let found = TypeLookup.type(named: declaration.handler) else {
            throw HiveError.unknownType(
                declaration.handler, role: "the handler of \(declaration.pattern)", source: declaration.source)
        }
        guard
            let handler = Conformances.metatype(found, as: (any RouteHandler.Type).self, path: Hive.defaultBindingPath)
        else {
            throw HiveError(
                .notAnImplementation,
                "expected \(declaration.handler), the handler of \(declaration.pattern), to conform to "
                    + "RouteHandler; it does not", source: declaration.source)
        }
        return handler
    }
}

extension ServiceActionResolver {
    /// Resolves the services of BeeHive call URLs (`scheme://call.service/<Service>.<action>`) from a hive:
    /// the service is created by name and must conform to ``ActionHandling``.
    ///
    /// ```swift
    /// Router.forScheme("app").setServiceResolver(.hive(.shared))
    /// try Router.forScheme("app").open("app://call.service/App.CartService.add?sku=42")
    /// ```
    /// - Parameter hive: The hive services are created from.
    public static func hive(_ hive: Hive) -> ServiceActionResolver {
        ServiceActionResolver { name in
            guard hive.registration(for: name) != nil else { return nil }
            let service = try hive.createService(named: name)
            guard let handler = service as? any ActionHandling else {
                throw HiveError(
                    .doesNotConform,
                    "expected service \(name) to conform to ActionHandling to be called by URL; "
                        + "\(type(of: service)) does not", source: hive.registration(for: name)?.source)
            }
            return handler
        }
    }
}

extension Router {
    /// Said when no route matched while the shared hive does not exist yet, so annotated routes cannot have joined.
    static var declaredRoutesHint: String {
        guard Hive.sharedIfCreated == nil else { return "" }
        return " (routes declared by BH_ROUTE records join once Hive.shared is in use, or with "
            + "Router.registerDeclaredRoutes(from: .shared); neither has happened yet)"
    }
}

extension Router {
    /// Checks every route a hive declares now, instead of when its scheme's router is first used: the pattern must
    /// parse and the handler type must be loaded and conform to ``RouteHandler``. Nothing is registered.
    ///
    /// ```swift
    /// try Router.validateDeclaredRoutes(in: .shared)
    /// ```
    /// - Parameter hive: The hive whose route declarations to check.
    /// - Throws: `HiveError` with code `validationFailed`, listing each problem (`unknownType`,
    ///   `notAnImplementation`, `malformedRecord`) with the declaration's source; each is also recorded in the
    ///   hive's diagnostics.
    public static func validateDeclaredRoutes(in hive: Hive) throws(HiveError) {
        var problems: [HiveError] = []
        for declaration in hive.routeDeclarations {
            do throws(RouterError) {
                _ = try RoutePattern(declaration.pattern)
            } catch {
                problems.append(HiveError(.malformedRecord, error.message, source: declaration.source))
            }
            do throws(HiveError) {
                _ = try handlerType(of: declaration)
            } catch {
                problems.append(error)
            }
        }
        try hive.failValidation(problems, expected: "every declared route to be valid")
    }
}
