/// How many of the shared hive's route declarations the process-wide routers have taken.
private let importedDeclarations = LockedValue(0)

extension Router {
    /// Registers routes declared by annotation records (`BH_ROUTE`) in `hive`: each on the process-wide
    /// router of its pattern's scheme (``forScheme(_:)``), with its handler type found by name.
    ///
    /// The shared hive's routes need no call: ``forScheme(_:)`` and ``router(forURL:)`` take any new
    /// declarations (after ``Hive/rescan()`` too) before they answer. Call this for a hive of your own.
    ///
    /// - Parameter hive: The hive whose route declarations to register.
    /// - Returns: The problems found (unknown or non-handler types, bad patterns, duplicates), each also
    ///   recorded in the hive's diagnostics with the record's source.
    @discardableResult
    public static func registerDeclaredRoutes(from hive: Hive) -> [Diagnostic] {
        register(hive.routeDeclarations, in: hive)
    }

    /// Takes the shared hive's route declarations not taken yet. Cheap when there are none.
    static func importSharedDeclarations() {
        let hive = Hive.shared
        guard hive.routeDeclarationCount != importedDeclarations.withLock({ $0 }) else { return }
        let declarations = hive.routeDeclarations
        let fresh: ArraySlice<RouteDeclaration> = importedDeclarations.withLock { imported in
            defer { imported = declarations.count }
            return declarations.dropFirst(min(imported, declarations.count))
        }
        register(Array(fresh), in: hive)
    }

    private static func register(_ declarations: [RouteDeclaration], in hive: Hive) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for declaration in declarations {
            do throws(HiveError) {
                guard let found = TypeLookup.type(named: declaration.handler) else {
                    throw HiveError.unknownType(
                        declaration.handler, role: "the handler of \(declaration.pattern)", source: declaration.source)
                }
                guard let handler = found as? any RouteHandler.Type else {
                    throw HiveError(
                        .notAnImplementation,
                        "expected \(declaration.handler), the handler of \(declaration.pattern), to conform to "
                            + "RouteHandler; it does not", source: declaration.source)
                }
                do {
                    let pattern = try RoutePattern(declaration.pattern)
                    let router = pattern.scheme.map(schemeRouter) ?? global
                    try router.register(pattern: declaration.pattern, handlerType: handler)
                } catch {
                    throw HiveError(.malformedRecord, "\(error.message)", source: declaration.source)
                }
            } catch {
                problems.append(Diagnostic(.error, error))
            }
        }
        hive.record(problems)
        return problems
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

extension Hive {
    var routeDeclarationCount: Int { state.withLock { $0.routes.count } }
}
