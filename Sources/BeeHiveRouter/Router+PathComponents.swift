import BeeHive
internal import _BeeHiveFileFormats

extension Router {
    /// The host of BHRouter's register form, `scheme://register.beehive/<key>.<Service>/…`.
    public static let registerHost = "register.beehive"
    /// The host of BHRouter's jump form, `scheme://jump.vc.beehive/<key>.<Target>.<push or modal>/…`.
    public static let jumpHost = "jump.vc.beehive"
    /// BHRouter's own spelling of the call host, accepted for path components beside the router's service-call
    /// host (``defaultServiceCallHost`` unless ``setServiceResolver(_:host:)`` names another).
    public static let beeHiveServiceCallHost = "call.service.beehive"

    /// Adds a path component for a type (BHRouter's `addPathComponent:forClass:handler:`).
    ///
    /// Once a router has path components, it answers BHRouter's URL forms (see ``PathComponent``); a router
    /// without any treats those URLs like any other.
    ///
    /// ```swift
    /// try router.addPathComponent("cart", for: CartService.self)
    /// try router.addPathComponent("home", for: HomeModule.self) { request in
    ///     HomeScreen(parameters: request.parameters)         // jump: what opening the target means here
    /// }
    /// ```
    /// - Parameters:
    ///   - key: The key URLs use: letters, digits, `_` and `-`.
    ///   - type: The type the key stands for; its module-qualified name is what the register form registers.
    ///   - handler: Runs for the key's call and jump components; `nil` calls the service's action (call form),
    ///     and makes jump URLs fail with ``RouterError/Code/unknownAction``.
    /// - Throws: ``RouterError/Code/malformedPattern`` for a bad key, ``RouterError/Code/duplicateRoute`` when the
    ///   key is taken.
    public func addPathComponent(
        _ key: String, for type: Any.Type, handler: PathComponent.Handler? = nil
    ) throws(RouterError) {
        try addPathComponent(key, implementation: TypeLookup.name(of: type), handler: handler)
    }

    /// Adds a path component whose key is the type's own name, so that BHRouter URLs naming the class keep working.
    ///
    /// BHRouter takes a component whose key was never added as the name of a class (`register.beehive/HomeModule`
    /// registers `HomeModule`). A router here refuses such a component with ``RouterError/Code/unknownPathComponent``:
    /// URLs come from outside the program, and a URL that could name any loaded type could register it as a module
    /// or as a service's implementation. This call allows one type under its own name, which keeps those URLs as
    /// they are:
    ///
    /// ```swift
    /// try router.addPathComponent(for: HomeModule.self)    // key "HomeModule"
    /// try router.open("app://register.beehive/HomeModule")
    /// ```
    /// - Parameters:
    ///   - type: The type; its name as `String(describing:)` spells it (`HomeModule` for `App.HomeModule`) is the
    ///     key.
    ///   - handler: Runs for the key's call and jump components, as in ``addPathComponent(_:for:handler:)``.
    /// - Throws: ``RouterError/Code/malformedPattern`` when that name is not a key (a generic type's `Box<Int>`: use
    ///   ``addPathComponent(_:for:handler:)`` with a key), ``RouterError/Code/duplicateRoute`` when the key is taken.
    public func addPathComponent(for type: Any.Type, handler: PathComponent.Handler? = nil) throws(RouterError) {
        try addPathComponent(String(describing: type), implementation: TypeLookup.name(of: type), handler: handler)
    }

    /// Adds a path component for a type named by its module-qualified name.
    ///
    /// ```swift
    /// try router.addPathComponent("cart", implementation: "App.CartService")
    /// ```
    /// - Parameters:
    ///   - key: The key URLs use: letters, digits, `_` and `-`.
    ///   - implementation: The type's module-qualified name.
    ///   - handler: Runs for the key's call and jump components, as in ``addPathComponent(_:for:handler:)``.
    /// - Throws: ``RouterError/Code/malformedPattern`` for a bad key, ``RouterError/Code/duplicateRoute`` when the
    ///   key is taken.
    public func addPathComponent(
        _ key: String, implementation: String, handler: PathComponent.Handler? = nil
    ) throws(RouterError) {
        let allowed = key.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-")
        }
        guard !key.isEmpty, allowed else {
            throw RouterError(
                .malformedPattern,
                "path component '\(key)': expected a key of letters, digits, '_' and '-', found "
                    + (key.isEmpty ? "an empty key" : "other characters"))
        }
        let component = PathComponent(key: key, implementation: implementation, handler: handler)
        let taken: PathComponent? = state.withLock { state in
            if let existing = state.settings.pathComponents[key] { return existing }
            state.settings.pathComponents[key] = component
            return nil
        }
        if let taken {
            throw RouterError(
                .duplicateRoute,
                "path component '\(key)': expected a new key, found it taken by \(taken.implementation)")
        }
    }

    /// Removes a path component (BHRouter's `removePathComponent:`).
    ///
    /// - Parameter key: The key.
    /// - Returns: `true` when a component was removed.
    @discardableResult
    public func removePathComponent(_ key: String) -> Bool {
        state.withLock { $0.settings.pathComponents.removeValue(forKey: key) } != nil
    }

    /// The path components, sorted by key.
    public var pathComponents: [PathComponent] {
        state.withLock { $0.settings.pathComponents.values.sorted { $0.key < $1.key } }
    }

    /// Sets the hive that the register form registers into, and that the call form resolves services from when
    /// the router has no service resolver.
    ///
    /// ```swift
    /// router.setPathComponentHive(.shared)
    /// try router.open("app://register.beehive/cart.App.CartService")
    /// ```
    /// - Parameter hive: The hive, or `nil` to refuse register URLs.
    public func setPathComponentHive(_ hive: Hive?) {
        state.withLock { $0.settings.pathComponentHive = hive }
    }

    // MARK: - Internals

    /// The BHRouter form of `url`, if the router has path components and the URL is one of their forms.
    func pathComponentForm(of url: ParsedRouteURL, _ settings: Settings) -> PathComponentRequest.Form? {
        guard !settings.pathComponents.isEmpty, url.segments.count >= 2, let host = url.segments.first?.lowercased()
        else {
            return nil
        }
        // Hosts compare case-insensitively, as BHRouter's do (`CALL.SERVICE.BEEHIVE`) and as RFC 3986 says.
        switch host {
        case Router.registerHost: return .register
        case Router.jumpHost: return .jump
        case settings.serviceCallHost.lowercased(), Router.beeHiveServiceCallHost:
            // `<key>.<Service>.<action>` with a known key; `<Service>.<action>` stays a plain service call.
            let key = url.segments[1].split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
            return settings.pathComponents[key] != nil ? .call : nil
        default: return nil
        }
    }

    /// The requests of a BHRouter URL, one per path component, in order.
    ///
    /// - Parameter overrides: Parameters by component key from the caller (BHRouter's `openURL:withParams:`); they
    ///   override the key's object in `params`, which overrides the other query items.
    func pathComponentRequests(
        _ url: ParsedRouteURL, form: PathComponentRequest.Form, _ settings: Settings,
        overrides: [String: [String: String]] = [:]
    ) throws(RouterError) -> [(PathComponent, PathComponentRequest)] {
        let shape =
            switch form {
            case .call: "<key>.<Service>.<action>"
            case .register: "<key>[.<Service>]"
            case .jump: "<key>.<Target>[.push|.modal]"
            }
        let perKey = try Self.pathComponentParameters(url)
        var query = url.queryDictionary
        query["params"] = nil
        let fragmentMode = url.fragment.map { $0.lowercased() }.flatMap { $0 == "push" || $0 == "modal" ? $0 : nil }
        var requests: [(PathComponent, PathComponentRequest)] = []
        for segment in url.segments.dropFirst() {
            let parts = segment.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let least =
                switch form {
                case .call: 3
                case .register: 1
                case .jump: 2
                }
            guard parts.count >= least, !parts.contains(where: \.isEmpty) else {
                throw RouterError(
                    .malformedURL, "'\(url.original)': expected path components '\(shape)', found '\(segment)'")
            }
            guard let component = settings.pathComponents[parts[0]] else {
                // BHRouter falls back to the class of that name (NSClassFromString); here a URL never chooses a
                // type the program did not add as a key: URLs come from outside (links, pushes, other processes),
                // and the register form would let them install any loaded type as a module or an implementation.
                let known = settings.pathComponents.keys.sorted().joined(separator: ", ")
                throw RouterError(
                    .unknownPathComponent,
                    "'\(url.original)': expected a path component key (\(known)); found '\(parts[0])', which this "
                        + "router has no key for (a URL cannot name a type by itself, as BHRouter's class-name "
                        + "fallback allowed: add it with addPathComponent(for:) or addPathComponent(_:for:))")
            }
            var target = parts.dropFirst().joined(separator: ".")
            var action: String?
            switch form {
            case .call:
                action = parts.last
                target = parts.dropFirst().dropLast().joined(separator: ".")
            case .jump:
                // As BHRouter: the fragment is the mode of every component that does not name its own, the
                // component's mode wins over it, and push is the default. Modes compare case-insensitively.
                action = fragmentMode ?? "push"
                if parts.count >= 3, let mode = parts.last?.lowercased(), mode == "push" || mode == "modal" {
                    action = mode
                    target = parts.dropFirst().dropLast().joined(separator: ".")
                }
            case .register: break
            }
            let values = query.merging(perKey[component.key] ?? [:]) { _, own in own }
                .merging(overrides[component.key] ?? [:]) { _, given in given }
            let request = PathComponentRequest(
                form: form, key: component.key, implementation: component.implementation, target: target,
                action: action,
                parameters: RouteParameters(values, origin: "'\(url.original)' (path component '\(component.key)')"),
                url: url.original)
            requests.append((component, request))
        }
        return requests
    }

    /// Runs a BHRouter URL's path components in order; returns what each gave.
    func openPathComponents(
        _ url: ParsedRouteURL, form: PathComponentRequest.Form, _ settings: Settings,
        overrides: [String: [String: String]] = [:]
    ) throws -> [PathComponentResult] {
        var results: [PathComponentResult] = []
        for (component, request) in try pathComponentRequests(url, form: form, settings, overrides: overrides) {
            let value: Any?
            switch form {
            case .call:
                if let handler = component.handler {
                    value = try handler(request)
                } else {
                    value = try callAction(request, settings)
                }
            case .register:
                guard let hive = settings.pathComponentHive else {
                    throw RouterError(
                        .serviceNotFound,
                        "'\(request.url)': expected a hive to register \(request.target) into "
                            + "(Router.setPathComponentHive); found none")
                }
                // `<key>` alone registers the key's type as a module (BHRouter's registerDynamicModule:);
                // `<key>.<Service>` registers it as the service's implementation.
                let registration: Any =
                    request.target.isEmpty
                    ? try hive.declareModule(component.implementation)
                    : try hive.register(service: request.target, impl: component.implementation)
                value = try component.handler.map { try $0(request) } ?? registration
            case .jump:
                guard let handler = component.handler else {
                    throw RouterError(
                        .unknownAction,
                        "'\(request.url)': expected a handler for path component '\(component.key)' to open "
                            + "\(request.target); found none (addPathComponent(_:for:handler:))")
                }
                value = try handler(request)
            }
            results.append(PathComponentResult(key: component.key, target: request.target, value: value))
        }
        return results
    }

    /// Whether ``openPathComponents(_:form:_:)`` would run every component: each parses and has its key, and has
    /// what its form needs (a handler or a service that handles the action; a hive; a handler).
    func canOpenPathComponents(_ url: ParsedRouteURL, form: PathComponentRequest.Form, _ settings: Settings) -> Bool {
        guard let requests = try? pathComponentRequests(url, form: form, settings) else { return false }
        return requests.allSatisfy { component, request in
            switch form {
            case .call:
                guard component.handler == nil else { return true }
                guard let handler = try? settings.pathComponentResolver?.resolve(request.target) else { return false }
                return handler.canHandleAction(request.action ?? "")
            case .register: return settings.pathComponentHive != nil
            case .jump: return component.handler != nil
            }
        }
    }

    /// The call form without a handler: the service's action, through the resolver or the hive.
    private func callAction(_ request: PathComponentRequest, _ settings: Settings) throws -> Any? {
        let resolver = settings.pathComponentResolver
        guard let resolver, let handler = try resolver.resolve(request.target) else {
            throw RouterError(
                .serviceNotFound,
                "'\(request.url)': expected a service named '\(request.target)', found none "
                    + (resolver == nil ? "(the router has no service resolver or hive)" : "in the resolver"))
        }
        return try handler.handleAction(request.action ?? "", parameters: request.parameters)
    }

    /// BHRouter's `params` query value: a JSON object keyed by path component, each an object of scalars.
    private static func pathComponentParameters(_ url: ParsedRouteURL) throws(RouterError) -> [String: [String: String]]
    {
        guard let text = url.queryDictionary["params"] else { return [:] }
        let expected =
            "expected 'params' to be a JSON object keyed by path component, each an object of strings, "
            + "numbers or booleans"
        let parsed = Array(text.utf8).withUnsafeBytes { buffer in
            Result { () throws(FileSyntaxError) in try JSONFileReader.read(buffer) }
        }
        guard case .success(.dictionary(let keys)) = parsed else {
            let found = (try? parsed.get()).map { "found \($0.kind)" } ?? "found text that is not JSON"
            throw RouterError(.invalidParameter, "'\(url.original)': \(expected); \(found)")
        }
        var result: [String: [String: String]] = [:]
        for field in keys {
            guard case .dictionary(let values) = field.value else {
                throw RouterError(
                    .invalidParameter, "'\(url.original)': \(expected); found \(field.value.kind) for '\(field.key)'")
            }
            var strings: [String: String] = [:]
            for value in values {
                switch value.value {
                case .string(let text): strings[value.key] = text
                case .integer(let number): strings[value.key] = String(number)
                case .real(let number): strings[value.key] = String(number)
                case .bool(let flag): strings[value.key] = String(flag)
                default:
                    throw RouterError(
                        .invalidParameter,
                        "'\(url.original)': \(expected); found \(value.value.kind) for '\(field.key)'.'\(value.key)'")
                }
            }
            result[field.key] = strings
        }
        return result
    }
}

extension Router.Settings {
    /// What resolves the services of the call form without a handler: the router's resolver, else its hive.
    var pathComponentResolver: ServiceActionResolver? {
        serviceResolver ?? pathComponentHive.map(ServiceActionResolver.hive)
    }
}

extension Router {
    /// Opens a BHRouter URL with parameters for each path component (BHRouter's `openURL:withParams:andThen:`).
    ///
    /// Each component's parameters are the URL's query items, overridden by the key's object in the `params` query
    /// item, overridden by `parameters[key]`: what the caller passes wins, as in BHRouter. The results, one per
    /// component in order, are what BHRouter's `andThen` block receives.
    ///
    /// ```swift
    /// try router.addPathComponent("cart", for: CartService.self)
    /// let results = try router.open(
    ///     "app://call.service.beehive/cart.App.CartService.add?sku=1", parameters: ["cart": ["sku": 42]])
    /// results[0].value   // what CartService's "add" returned for sku 42
    /// ```
    ///
    /// - Parameters:
    ///   - url: A URL of one of BHRouter's forms (see ``PathComponent``); redirects apply first.
    ///   - parameters: Values by path component key, then by parameter name; their descriptions are used.
    ///   - userInfo: Not used by path components; accepted for symmetry with ``open(_:userInfo:completion:)``.
    /// - Returns: What each component gave, in order.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/routeNotFound`` when the URL is not a BHRouter URL of
    ///   this router (its host is none of the three forms, or the router has no path components),
    ///   ``RouterError/Code/unknownPathComponent`` for an unknown key, the errors of ``open(_:userInfo:completion:)``,
    ///   and whatever a component's handler or action throws.
    @discardableResult
    public func open(
        _ url: String, parameters: [String: [String: any CustomStringConvertible]],
        userInfo: [String: any Sendable] = [:]
    ) throws -> [PathComponentResult] {
        let settings = state.withLock { $0.settings }
        let target = try settings.redirects?.resolve(url).url ?? url
        let parsed = try ParsedRouteURL(target)
        guard acceptsScheme(of: parsed), let form = pathComponentForm(of: parsed, settings) else {
            throw RouterError(
                .routeNotFound,
                "'\(target)': expected a BHRouter URL (host \(Router.beeHiveServiceCallHost), \(Router.registerHost) "
                    + "or \(Router.jumpHost), with path components added to this router); found none of them")
        }
        let overrides = parameters.mapValues { values in values.mapValues(\.description) }
        return try openPathComponents(parsed, form: form, settings, overrides: overrides)
    }
}
