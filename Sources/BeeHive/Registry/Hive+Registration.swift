extension Hive {
    /// Registers a factory for `service`: the primary way to register in code, checked by the compiler.
    ///
    /// The factory returns `Service`, so an implementation that does not conform is a compile error, not a
    /// run-time one:
    /// ```swift
    /// try hive.register(UserTrackService.self) { _ in ConsoleTracker() }
    /// try hive.register(Clock.self, name: "fake", scope: .singleton) { hive in
    ///     FakeClock(log: try hive.createService(Log.self))
    /// }
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol.
    ///   - name: A name, to register several implementations of one service.
    ///   - scope: Whether every request gets a new instance (`.transient`, the default) or one shared instance.
    ///   - rank: Its rank among the registrations of `service` and `name`: the highest serves, and when it leaves
    ///     (a plugin retired) the next one takes over. Equal ranks (0 by default) are duplicates: the first wins.
    ///   - properties: What this implementation is, for ``services(_:where:)-(Service.Type,_)``: `["region": "eu"]`.
    ///   - factory: Makes an instance. Called without any lock held; it may resolve other services from the hive
    ///     it is given.
    ///   - fileID: The file that registers, recorded in the registration's source; leave the default.
    ///   - line: The line that registers, recorded with `fileID`; leave the default.
    /// - Returns: The registration.
    /// - Throws: ``HiveError/Code-swift.struct/duplicateRegistration`` in strict mode when the service (and name)
    ///   is taken at the same rank. Otherwise the first registration wins and the duplicate is a warning.
    @discardableResult
    public func register<Service>(
        _ service: Service.Type, name: String? = nil, scope: ServiceScope = .transient, rank: Int = 0,
        properties: [String: String] = [:], fileID: String = #fileID, line: Int = #line,
        factory: @escaping @Sendable (Hive) throws -> Service
    ) throws(HiveError) -> ServiceRegistration {
        try register(
            ServiceRegistration(
                service: TypeLookup.name(of: service), name: name, implementation: "factory",
                source: .code(fileID: fileID, line: line), rank: rank, properties: properties),
            .factory(
                scope,
                { hive in
                    let instance = try factory(hive)
                    return Made(instance: instance, boxed: TypedBox(instance))
                }), type: service)
    }

    /// Registers `impl` as the implementation of `service`, in code (BeeHive's `registerService:implClass:`).
    ///
    /// Swift cannot require a type parameter to conform to another one that is a protocol, so the compiler cannot
    /// check this call; the registration checks it at run time instead, as BeeHive does. Prefer
    /// ``register(_:name:scope:rank:properties:fileID:line:factory:)-(Service.Type,_,_,_,_,_,_,_)``, which the compiler
    /// checks.
    ///
    /// ```swift
    /// try hive.register(service: UserTrackService.self, impl: UserTrackServiceImpl.self)
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol: `UserTrackService.self`.
    ///   - impl: The implementation type. It must conform to `service`: when `service` is one protocol, this is
    ///     checked here, and a type that does not conform is refused (thrown in every mode, as it could never be
    ///     created) and leaves the service free for a valid registration; otherwise it is checked when the service
    ///     is created.
    ///   - name: A name, to register several implementations of one service.
    ///   - rank: Its rank among the registrations of `service` and `name`; higher serves first.
    ///   - properties: What this implementation is, for ``services(_:where:)-(Service.Type,_)``.
    ///   - fileID: The file that registers, recorded in the registration's source; leave the default.
    ///   - line: The line that registers, recorded with `fileID`; leave the default.
    /// - Returns: The registration.
    /// - Throws: ``HiveError/Code-swift.struct/doesNotConform`` when `impl` does not conform to the protocol
    ///   `service`; ``HiveError/Code-swift.struct/duplicateRegistration`` in strict mode when the service
    ///   (and name) is taken at the same rank. Otherwise the first registration wins and the duplicate is a warning.
    @discardableResult
    public func register<Service, Impl: ServiceImplementation>(
        service: Service.Type, impl: Impl.Type, name: String? = nil, rank: Int = 0,
        properties: [String: String] = [:], fileID: String = #fileID, line: Int = #line
    ) throws(HiveError) -> ServiceRegistration {
        let registration = ServiceRegistration(
            service: TypeLookup.name(of: service), name: name, implementation: TypeLookup.name(of: impl),
            source: .code(fileID: fileID, line: line), rank: rank, properties: properties)
        if let refused = conformanceRefusal(service, impl: impl, registration) {
            record([Diagnostic(.error, refused)])
            throw refused
        }
        return try register(registration, .implementation(impl, boxes: .none), type: service)
    }

    /// Registers a factory for `service`, in code:
    /// ``register(_:name:scope:rank:properties:fileID:line:factory:)-(Service.Type,_,_,_,_,_,_,_)`` with the service
    /// labelled.
    ///
    /// ```swift
    /// try hive.register(service: Clock.self, scope: .singleton) { _ in SystemClock() }
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol.
    ///   - name: A name, to register several implementations of one service.
    ///   - scope: Whether every request gets a new instance or one shared instance.
    ///   - rank: Its rank among the registrations of `service` and `name`; higher serves first.
    ///   - properties: What this implementation is, for ``services(_:where:)-(Service.Type,_)``.
    ///   - factory: Makes an instance. Called without any lock held; it may resolve other services
    ///     from the hive it is given.
    ///   - fileID: The file that registers, recorded in the registration's source; leave the default.
    ///   - line: The line that registers, recorded with `fileID`; leave the default.
    /// - Returns: The registration.
    /// - Throws: ``HiveError/Code-swift.struct/duplicateRegistration`` in strict mode when taken at the same rank.
    @discardableResult
    public func register<Service>(
        service: Service.Type, name: String? = nil, scope: ServiceScope = .transient, rank: Int = 0,
        properties: [String: String] = [:], fileID: String = #fileID, line: Int = #line,
        factory: @escaping @Sendable (Hive) throws -> Service
    ) throws(HiveError) -> ServiceRegistration {
        try register(
            service, name: name, scope: scope, rank: rank, properties: properties, fileID: fileID, line: line,
            factory: factory)
    }

    /// Registers the type named `impl` as the implementation of the service named `service`.
    ///
    /// The type is looked up when the service is first created, as for annotation records.
    /// ```swift
    /// try hive.register(service: "App.UserTrackService", impl: "App.UserTrackServiceImpl")
    /// ```
    /// - Parameters:
    ///   - service: The service's module-qualified name.
    ///   - impl: The implementation type's module-qualified name.
    ///   - name: A name, to register several implementations of one service.
    ///   - rank: Its rank among the registrations of `service` and `name`; higher serves first.
    ///   - properties: What this implementation is, for ``services(_:where:)-(Service.Type,_)``.
    ///   - fileID: The file that registers, recorded in the registration's source; leave the default.
    ///   - line: The line that registers, recorded with `fileID`; leave the default.
    /// - Returns: The registration.
    /// - Throws: ``HiveError/Code-swift.struct/duplicateRegistration`` in strict mode when taken at the same rank.
    @discardableResult
    public func register(
        service: String, impl: String, name: String? = nil, rank: Int = 0, properties: [String: String] = [:],
        fileID: String = #fileID, line: Int = #line
    ) throws(HiveError) -> ServiceRegistration {
        try register(
            ServiceRegistration(
                service: service, name: name, implementation: impl, source: .code(fileID: fileID, line: line),
                rank: rank, properties: properties),
            .typeName(impl))
    }

    /// Declares a module in code, as `BH_MODULE` or a `BeeHive.plist` entry would.
    ///
    /// - Parameters:
    ///   - module: The module type's module-qualified name.
    ///   - level: Its level; lower starts first.
    ///   - priority: Its priority within the level; higher starts first.
    ///   - isAsync: Whether its init event runs off the caller's thread.
    ///   - fileID: The file that declares, recorded in the registration's source; leave the default.
    ///   - line: The line that declares, recorded with `fileID`; leave the default.
    /// - Returns: The declaration.
    /// - Throws: ``HiveError/Code-swift.struct/duplicateRegistration`` in strict mode when declared before.
    @discardableResult
    public func declareModule(
        _ module: String, level: ModuleLevel = .normal, priority: Int = 0, isAsync: Bool = false,
        fileID: String = #fileID, line: Int = #line
    ) throws(HiveError) -> ModuleDeclaration {
        let declaration = ModuleDeclaration(
            name: module, level: level, priority: priority, isAsync: isAsync, source: .code(fileID: fileID, line: line))
        try failIfStrict(add(services: [], modules: [declaration]))
        return declaration
    }

    /// Registers one service made in code; `type`, when known, is the service's own type, whose first request then
    /// finds the entry without spelling the type's name again.
    func register(
        _ registration: ServiceRegistration, _ provider: Provider, type: (any Any.Type)? = nil
    ) throws(HiveError)
        -> ServiceRegistration
    {
        let problems = add(services: [ServiceEntry(registration, provider)])
        state.withLock { state in
            if let type, let entry = state.entry(for: registration.key) {
                state.typeIndex.set(
                    entry, for: TypeKey(type: ObjectIdentifier(type), name: registration.name),
                    expected: state.services.count)
            }
        }
        try failIfStrict(problems)
        return registration
    }

    /// Records problems; in strict mode throws the first error among them.
    package func failIfStrict(_ problems: [Diagnostic]) throws(HiveError) {
        record(problems)
        if options.isStrict, let first = problems.first(where: { $0.severity == .error }) { throw first.error }
    }

    /// Every service registration, in the order registered.
    public var serviceRegistrations: [ServiceRegistration] {
        state.withLock { state in state.serviceOrder.map(\.registration) }
    }

    /// Every module declaration, in the order declared.
    public var moduleDeclarations: [ModuleDeclaration] {
        state.withLock { state in state.moduleOrder.compactMap { state.modules[$0] } }
    }

    /// Every route declaration from annotation records, in the order found.
    public var routeDeclarations: [RouteDeclaration] { state.withLock { $0.routes } }

    /// Counts the changes of ``routeDeclarations``: routers compare it to know when to import them again.
    package var routeGeneration: Int { state.withLock { $0.routeGeneration } }

    /// ``routeDeclarations`` with the ``routeGeneration`` they belong to, read together.
    package var versionedRouteDeclarations: (generation: Int, routes: [RouteDeclaration]) {
        state.withLock { ($0.routeGeneration, $0.routes) }
    }
}
