import BeeHive
import BeeHiveRouter

/// A target–action mediator (CTMediator): calls a named action on a target type found by name at run time, so
/// that modules call each other without importing each other.
///
/// A call names a target and an action. The mediator asks its type-lookup closure for the target name as given
/// and then with the `Target_` prefix (`User` → `User`, `Target_User`; `App.User` → `App.User`,
/// `App.Target_User`), and uses the first type that conforms to ``MediatorTarget``. When the action is missing,
/// the not-found chain runs: the target's own not-found action (``MediatorAction/notFound(remoteCallable:_:)``),
/// then the mediator's not-found handler (``setNotFoundHandler(_:)``, CTMediator's global no-target action),
/// then a ``MediatorError``. A missing target goes straight to the handler, then the error.
///
/// Every method may be called from any thread; lookups, `init()`, actions and handlers run with no lock held.
///
/// ```swift
/// let mediator = Mediator(typeLookup: { name in _typeByName(name) })
/// let screen = try mediator.perform(target: "User", action: "profile", params: ["id": 42])
/// try mediator.perform(url: "app://User/profile?id=42", origin: .local)
/// try mediator.handleRemoteURL("app://User/card?id=42")    // only remote-callable actions
/// ```
public final class Mediator: Sendable {
    /// The handler for calls nothing else handles; receives the request and the error that would be thrown.
    public typealias NotFoundHandler = @Sendable (MediatorRequest, MediatorError) throws -> Any?

    /// The prefix tried in front of target names: `Target_`.
    public static let targetPrefix = "Target_"

    /// The name of a target's not-found action: `notFound`.
    public static let notFoundActionName = "notFound"

    /// The prefix of action names that remote calls never reach, whatever the action's declaration says: `native`.
    ///
    /// CTMediator's rule: `performActionWithUrl:` refuses any action whose name starts with `native`. Here a remote
    /// call (``MediatorOrigin/remote``) to such a name is refused with ``MediatorError/Code/remoteCallRefused``
    /// before any target is looked up, even when the action is declared with
    /// ``MediatorAction/remote(_:_:)-(_,MediatorAction<Target>.Body)``; such a declaration makes a local-only action
    /// (``MediatorAction/isRemoteCallable`` is `false`). The comparison is case-sensitive, as CTMediator's.
    public static let nativeActionPrefix = "native"

    struct State: Sendable {
        var cache: [String: BoundMediatorTarget] = [:]
        var notFoundHandler: NotFoundHandler?
        var redirects: RedirectTable?
    }

    /// The lower-cased scheme accepted by the URL form, or `nil` to accept every scheme.
    public let scheme: String?

    private let typeLookup: @Sendable (String) -> Any.Type?
    let state = LockedValue(State())

    /// Makes a mediator that finds target types with a lookup closure.
    ///
    /// - Parameters:
    ///   - scheme: The only scheme ``perform(url:origin:)`` accepts (case-insensitive), or `nil` for any.
    ///   - typeLookup: Returns the type for a name, or `nil`; for example `{ _typeByName($0) }`. It runs with no
    ///     lock held.
    public init(scheme: String? = nil, typeLookup: @escaping @Sendable (_ name: String) -> Any.Type?) {
        self.scheme = scheme?.lowercased()
        self.typeLookup = typeLookup
    }

    /// Makes a mediator that knows a fixed set of targets by name.
    ///
    /// - Parameters:
    ///   - scheme: The only scheme ``perform(url:origin:)`` accepts, or `nil` for any.
    ///   - targets: The target types by name, for example `["Target_User": Target_User.self]`.
    public convenience init(scheme: String? = nil, targets: [String: any MediatorTarget.Type]) {
        self.init(scheme: scheme) { name in targets[name] }
    }

    // MARK: - Configuration

    /// Sets the handler for calls whose target or action is not found (CTMediator's no-target action).
    ///
    /// Refused remote calls never reach it.
    ///
    /// - Parameter handler: Returns the call's result (for example a placeholder or a web page), or throws;
    ///   `nil` removes it.
    public func setNotFoundHandler(_ handler: NotFoundHandler?) {
        state.withLock { $0.notFoundHandler = handler }
    }

    /// Sets the redirect table applied to URLs before ``perform(url:origin:)`` dispatches them.
    ///
    /// - Parameter table: The table, or `nil` for none.
    public func setRedirects(_ table: RedirectTable?) {
        state.withLock { $0.redirects = table }
    }

    // MARK: - Targets

    /// Whether a target type can be found for a name (as given or with the `Target_` prefix).
    ///
    /// - Parameter name: The target name, for example `User` or `Target_User`.
    /// - Returns: `true` when a cached instance or a ``MediatorTarget`` type exists for the name.
    public func hasTarget(named name: String) -> Bool {
        cachedTarget(named: name) != nil || findTargetType(named: name) != nil
    }

    /// Whether an instance of the target is cached.
    ///
    /// - Parameter name: The target name, as given to ``perform(target:action:params:cacheTarget:origin:)``.
    /// - Returns: `true` when a call with `cacheTarget: true` cached it and it was not released.
    public func isTargetCached(named name: String) -> Bool {
        cachedTarget(named: name) != nil
    }

    /// Drops the cached instance of a target (CTMediator's `releaseCachedTargetWithFullTargetName:`).
    ///
    /// - Parameter name: The target name, with or without the `Target_` prefix.
    /// - Returns: `true` when an instance was dropped.
    @discardableResult
    public func releaseCachedTarget(named name: String) -> Bool {
        let candidates = Self.candidateNames(for: name)
        return state.withLock { state in
            candidates.reduce(false) { released, candidate in
                state.cache.removeValue(forKey: candidate) != nil || released
            }
        }
    }

    /// Drops every cached target instance.
    public func releaseAllCachedTargets() {
        state.withLock { $0.cache.removeAll() }
    }

    // MARK: - Calling

    /// Calls an action of a target: CTMediator's `performTarget:action:params:shouldCacheTarget:`.
    ///
    /// ```swift
    /// let screen = try mediator.perform(target: "User", action: "profile", params: ["id": 42])
    /// ```
    ///
    /// - Parameters:
    ///   - target: The target name, for example `User` (finds `User` or `Target_User`).
    ///   - action: The action name.
    ///   - params: The parameters; any `Sendable` values.
    ///   - cacheTarget: Whether to keep the target instance for later calls (until
    ///     ``releaseCachedTarget(named:)``, or until it is asked for an action it lacks while it has no `notFound`
    ///     action, as CTMediator drops it then); a cached instance is used even when this is `false`.
    ///   - origin: ``MediatorOrigin/remote`` for calls from outside the process (see ``MediatorAction``).
    /// - Returns: The action's result.
    /// - Throws: ``MediatorError`` (target or action not found without a handler, remote call refused, duplicate
    ///   action names) or whatever the action or the not-found handler throws.
    @discardableResult
    public func perform(
        target: String,
        action: String,
        params: [String: any Sendable] = [:],
        cacheTarget: Bool = false,
        origin: MediatorOrigin = .local
    ) throws -> Any? {
        try perform(target: target, action: action, params: params, cacheTarget: cacheTarget, origin: origin, url: nil)
    }

    /// Calls an action of a target and returns its result as a given type.
    ///
    /// - Parameters:
    ///   - target: The target name.
    ///   - action: The action name.
    ///   - params: The parameters.
    ///   - cacheTarget: Whether to keep the target instance for later calls.
    ///   - type: The expected result type.
    /// - Returns: The action's result.
    /// - Throws: ``MediatorError`` with code ``MediatorError/Code/typeMismatch`` when the result is `nil` or of
    ///   another type, and the errors of ``perform(target:action:params:cacheTarget:origin:)``.
    public func perform<Value>(
        target: String,
        action: String,
        params: [String: any Sendable] = [:],
        cacheTarget: Bool = false,
        as type: Value.Type
    ) throws -> Value {
        let result = try perform(target: target, action: action, params: params, cacheTarget: cacheTarget)
        guard let value = result as? Value else {
            let found = result.map { "\(Swift.type(of: $0)) (\($0))" } ?? "nil"
            throw MediatorError(
                .typeMismatch,
                "target '\(target)', action '\(action)': expected a result of type \(Value.self), found \(found)"
            )
        }
        return value
    }

    func perform(
        target: String,
        action: String,
        params: [String: any Sendable],
        cacheTarget: Bool,
        origin: MediatorOrigin,
        url: String?
    ) throws -> Any? {
        let place = url.map { "'\($0)'" } ?? "target '\(target)', action '\(action)'"
        let parameters = MediatorParameters(params, origin: place)
        let request = MediatorRequest(
            targetName: target,
            action: action,
            parameters: parameters,
            origin: origin,
            url: url
        )
        if origin == .remote, action.hasPrefix(Self.nativeActionPrefix) {
            // Before the lookup: a refused call makes no target instance and reaches no not-found handler.
            throw MediatorError(
                .remoteCallRefused,
                "\(place): expected a remote call to name an action that does not start with "
                    + "'\(Self.nativeActionPrefix)', found '\(action)' (actions named '\(Self.nativeActionPrefix)…' are "
                    + "local-only, as in CTMediator, even when declared .remote)"
            )
        }
        let handler = state.withLock { $0.notFoundHandler }

        guard let bound = try boundTarget(named: target, cache: cacheTarget) else {
            let tried = Self.candidateNames(for: target).map { "'\($0)'" }.joined(separator: ", ")
            let error = MediatorError(
                .targetNotFound,
                "\(place): expected a MediatorTarget type named \(tried), found none"
            )
            guard let handler else { throw error }
            return try handler(request, error)
        }

        if let found = bound.actions[action] {
            guard origin == .local || found.isRemoteCallable else {
                throw MediatorError(
                    .remoteCallRefused,
                    "\(place): expected a remote call to reach an action marked remote-callable, found '\(action)' "
                        + "of target '\(bound.name)' local-only"
                )
            }
            return try found.run(request)
        }

        if let notFound = bound.actions[Self.notFoundActionName], origin == .local || notFound.isRemoteCallable {
            return try notFound.run(request)
        }
        if bound.actions[Self.notFoundActionName] == nil {
            // CTMediator drops a cached target that lacks the action and has no notFound action: the next call
            // makes a fresh instance. Released outside the lock: a deinit is user code.
            let dropped = state.withLock { $0.cache.removeValue(forKey: bound.name) }
            _ = dropped
        }
        let available = bound.actionNames.filter { $0 != Self.notFoundActionName }
        let error = MediatorError(
            .actionNotFound,
            "\(place): expected an action of target '\(bound.name)' named '\(action)', found none (actions: "
                + "\(available.isEmpty ? "none" : available.joined(separator: ", ")))"
        )
        guard let handler else { throw error }
        return try handler(request, error)
    }

    // MARK: - Target lookup

    /// The names tried for a target, in order: as given, then with the `Target_` prefix on the last component.
    static func candidateNames(for name: String) -> [String] {
        let lastDot = name.lastIndex(of: ".")
        let module = lastDot.map { String(name[...$0]) } ?? ""
        let base = lastDot.map { String(name[name.index(after: $0)...]) } ?? name
        guard !base.hasPrefix(targetPrefix) else { return [name] }
        return [name, module + targetPrefix + base]
    }

    private func cachedTarget(named name: String) -> BoundMediatorTarget? {
        let candidates = Self.candidateNames(for: name)
        let cache = state.withLock { $0.cache }
        return candidates.lazy.compactMap { cache[$0] }.first
    }

    private func findTargetType(named name: String) -> (name: String, type: any MediatorTarget.Type)? {
        for candidate in Self.candidateNames(for: name) {
            if let type = typeLookup(candidate) as? any MediatorTarget.Type {
                return (candidate, type)
            }
        }
        return nil
    }

    /// The cached instance, or a new one (cached when asked); `nil` when no type is found.
    ///
    /// `init()` runs outside the lock, so two racing first calls with `cache: true` may both make an instance;
    /// the first one stored wins and is returned to both.
    private func boundTarget(named name: String, cache: Bool) throws(MediatorError) -> BoundMediatorTarget? {
        if let cached = cachedTarget(named: name) { return cached }
        guard let (typeName, type) = findTargetType(named: name) else { return nil }
        let bound = try type.bindForMediator(name: typeName)
        guard cache else { return bound }
        return state.withLock { state in
            if let winner = state.cache[typeName] { return winner }
            state.cache[typeName] = bound
            return bound
        }
    }
}
