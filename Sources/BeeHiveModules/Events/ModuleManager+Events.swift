import BeeHive
import Dispatch

/// Marks the tasks that are delivering a manager's events, so that what a hook triggers is delivered at once
/// instead of waiting for start (which is waiting for that hook).
enum DeliveryScope {
    /// The managers whose delivery the current task (or an ancestor) is running.
    @TaskLocal static var managers: Set<ObjectIdentifier> = []
}

extension ModuleManager {
    /// Delivers `event` to every module that handles it, in order (reverse order for ``ModuleEvent/tearDown``),
    /// awaiting each module's hook before the next module's.
    ///
    /// A module gets a lifecycle event (setUp, init, splash, tearDown, unmount) if it implements that hook.
    /// ``ModuleEvent/willTerminate``, ``ModuleEvent/didReceiveMemoryWarning`` and ``ModuleEvent/reload`` go to the
    /// module's named hook (``HiveModule/modWillTerminate(_:)``, ``HiveModule/modDidReceiveMemoryWarning(_:)``,
    /// ``HiveModule/modReload(_:)``); a module that does not implement it gets ``HiveModule/modHandleEvent(_:_:)``
    /// if it lists the event in ``HiveModule/events``. (Before start, a module not created yet gets them only if it
    /// lists them: it was never set up.) Any other event reaches ``HiveModule/modHandleEvent(_:_:)``
    /// of the modules that list it. Handlers of ``subscribe(module:to:handler:)`` run after the module's hook.
    /// ``ModuleEvent/initialize`` runs the inits of modules declared async concurrently, as in
    /// ``start(parameters:)``.
    ///
    /// Each handler gets its own copy of the context, carrying the event and `parameters`. A handler that throws
    /// is reported (a diagnostic naming the module, the event and the error) and the other modules still get the
    /// event. No lock is held while handlers run. While ``start(parameters:)`` runs, the event waits until start
    /// has returned (see ``ModuleManager``).
    ///
    /// ```swift
    /// try await manager.trigger(.reload)
    /// try await manager.trigger(.custom(1001), parameters: ["cart": 3])
    /// ```
    /// - Parameters:
    ///   - event: The event.
    ///   - parameters: The event's parameters (BeeHive's `customParam`).
    /// - Throws: `HiveError.Code.unsupportedEvent` for an event with no meaning on Linux
    ///   (``ModuleEvent/hasLinuxMeaning`` is false, e.g. ``ModuleEvent/didEnterBackground``; also recorded as a
    ///   diagnostic); nothing is delivered.
    public func trigger(_ event: ModuleEvent, parameters: [String: any Sendable] = [:]) async throws(HiveError) {
        if let rejection = event.linuxRejection {
            let error = HiveError(
                .unsupportedEvent,
                "expected an event with a meaning on Linux; found \(rejection). To give it a meaning in this "
                    + "program, trigger a custom event (\(ModuleEvent.firstCustomValue) or more) instead")
            hive.record([Diagnostic(.error, error)])
            throw error
        }
        await gated { await dispatch(event, parameters: parameters) }
    }

    /// Delivers the custom event `value` (BeeHive's `triggerCustomEvent:`).
    ///
    /// ```swift
    /// try await manager.triggerCustomEvent(1001, parameters: ["items": 3])
    /// ```
    /// - Parameters:
    ///   - value: The event's number, 1000 or more.
    ///   - parameters: The event's parameters.
    /// - Throws: `HiveError.Code.invalidCustomEvent` for a number below 1000 (also recorded
    ///   as a diagnostic); nothing is delivered.
    public func triggerCustomEvent(_ value: Int, parameters: [String: any Sendable] = [:]) async throws(HiveError) {
        let event: ModuleEvent
        do {
            event = try ModuleEvent.custom(value)
        } catch {
            hive.record([Diagnostic(.error, error)])
            throw error
        }
        try await trigger(event, parameters: parameters)
    }

    /// Calls `handler` whenever `event` reaches the module named `module`, in that module's turn (after its hook).
    ///
    /// Subscriptions belong to one module: two modules subscribing to one custom event each get their own
    /// handler called (BeeHive kept the first module's selector for everyone). The handler may be `async`; the
    /// manager awaits it before the next module's turn.
    ///
    /// ```swift
    /// try manager.subscribe(module: "Analytics.AnalyticsModule", to: .custom(1001)) { context in
    ///     await analytics.record("cart", context.eventParameters["items"])
    /// }
    /// ```
    /// - Parameters:
    ///   - module: The module's name.
    ///   - event: The event.
    ///   - handler: Called with the context carrying the event; without any lock held.
    /// - Throws: `HiveError.Code.moduleNotFound` if no module has that name; `HiveError.Code.unsupportedEvent`
    ///   for an event with no meaning on Linux, which would never be delivered.
    public func subscribe(
        module: String, to event: ModuleEvent, handler: @escaping @Sendable (ModuleContext) async throws -> Void
    ) throws(HiveError) {
        if let rejection = event.linuxRejection {
            throw HiveError(
                .unsupportedEvent,
                "expected module \(module) to subscribe to an event with a meaning on Linux; found \(rejection), "
                    + "which is never delivered")
        }
        let found = state.withLock { state -> Bool in
            guard state.entries[module] != nil else { return false }
            state.sequence += 1
            state.subscriptions[module, default: [:]][event, default: []].append(
                Subscription(id: state.sequence, handler: handler))
            return true
        }
        if !found { throw moduleNotFound(module) }
    }

    /// Delivers setUp, then init, then splash, and returns once splash is done.
    ///
    /// First, as BeeHive does when its context is set, the files named by the context's
    /// ``ModuleContext/moduleConfigName`` and ``ModuleContext/serviceConfigName`` are loaded into the hive
    /// (problems become diagnostics; the modules and services that load are used).
    ///
    /// Each hook is awaited in level and priority order. For init, modules declared async (`isAsync`, `BH_MODULE`'s
    /// fourth argument) run theirs concurrently, as child tasks of a task group, while the other modules init one
    /// after the other; splash begins once every init, the async ones included, has finished. The task running
    /// start is their parent: cancelling it cancels the async inits.
    ///
    /// Start runs once: a second call waits until the first has returned (and returns at once when made from one
    /// of start's own hooks); after ``terminate(parameters:)`` it does nothing. Events that arrive meanwhile
    /// are delivered after start (see ``ModuleManager``).
    ///
    /// ```swift
    /// await manager.start()
    /// print(manager.profiler.table())
    /// ```
    /// - Parameter parameters: Parameters for the three events.
    public func start(parameters: [String: any Sendable] = [:]) async {
        enum Role { case run, wait, done }
        let role = state.withLock { state -> Role in
            switch state.phase {
            case .idle:
                state.phase = .starting
                return .run
            case .starting: return .wait
            case .started, .terminated: return .done
            }
        }
        switch role {
        case .done: return
        case .wait:
            if !isDelivering { await ready() }
            return
        case .run: break
        }
        // Deliveries that began before start finish first, so that none of their hooks overlaps setUp or init.
        if !isDelivering {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let drained = state.withLock { state -> Bool in
                    guard state.inFlight > 0 else { return true }
                    state.drainWaiters.append(continuation)
                    return false
                }
                if drained { continuation.resume() }
            }
        }
        await delivering {
            await HiveTimeline.span(in: hive.timeline, nil, "modules.start", category: ModuleEvent.timelineCategory) {
                arguments in
                loadConfiguredFiles()
                refresh()
                let entries = state.withLock { state -> [ModuleEntry] in
                    let entries = state.ordered()
                    for entry in entries { entry.lifecycleClaimed = true }
                    return entries
                }
                arguments["modules"] = .integer(entries.count)
                for entry in entries { await deliver(.setUp, to: entry, parameters: parameters) }
                await initialize(entries, parameters: parameters)
                for entry in entries { await deliver(.splash, to: entry, parameters: parameters) }
            }
        }
        state.withLock { state in
            if state.phase == .starting { state.phase = .started }
            state.isReady = true
        }
        readyGroup.leave()
    }

    /// Blocks the calling thread until ``start(parameters:)`` has finished (every init, async ones included, and
    /// splash), for synchronous code only; async code awaits ``ready()``.
    ///
    /// ```swift
    /// Thread { manager.waitUntilReady(); print("modules ready") }.start()
    /// ```
    @available(*, noasync, message: "use 'await ready()' in async code: this blocks a thread")
    public func waitUntilReady() {
        readyGroup.wait()
    }

    /// Waits until ``start(parameters:)`` has finished (every init, async ones included, and splash); returns at
    /// once if it already has. Before start is called, it waits for start to be called and finish.
    ///
    /// ```swift
    /// async let started: Void = manager.start()
    /// await manager.ready()   // setUp, init and splash are done
    /// await started
    /// ```
    public func ready() async {
        if state.withLock({ $0.isReady }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            readyGroup.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Delivers ``ModuleEvent/willTerminate`` (in order) then ``ModuleEvent/tearDown`` (in reverse order), once,
    /// awaiting every hook.
    ///
    /// Called while ``start(parameters:)`` runs, it waits until start has returned. A second call waits until the
    /// first has finished (and returns at once when made from a hook). The manager does not start after it: called
    /// before start, it also ends the wait of ``ready()``.
    ///
    /// ```swift
    /// await manager.terminate()   // every module has torn down
    /// ```
    /// - Parameter parameters: Parameters for both events, e.g. `["signal": 15]`.
    public func terminate(parameters: [String: any Sendable] = [:]) async {
        enum Role { case run, runBeforeStart, wait, done }
        let fromHook = isDelivering
        await gated {
            let role = state.withLock { state -> Role in
                if state.phase != .terminated {
                    defer { state.phase = .terminated }
                    guard state.phase == .idle else { return .run }
                    state.isReady = true
                    return .runBeforeStart
                }
                return state.terminationDone || fromHook ? .done : .wait
            }
            switch role {
            case .done: return
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let done = state.withLock { state -> Bool in
                        guard !state.terminationDone else { return true }
                        state.terminationWaiters.append(continuation)
                        return false
                    }
                    if done { continuation.resume() }
                }
            case .run, .runBeforeStart:
                // Start will never run: whoever waits for it to finish stops waiting.
                if role == .runBeforeStart { readyGroup.leave() }
                await dispatch(.willTerminate, parameters: parameters)
                await dispatch(.tearDown, parameters: parameters)
                let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    state.terminationDone = true
                    defer { state.terminationWaiters = [] }
                    return state.terminationWaiters
                }
                for waiter in waiters { waiter.resume() }
            }
        }
    }

    /// Loads the module and service files the context names, once.
    private func loadConfiguredFiles() {
        let context = state.withLock { $0.context }
        if let path = context.serviceConfigName { _ = try? hive.loadServices(from: path) }
        if let path = context.moduleConfigName { _ = try? hive.loadModules(from: path) }
    }

    // MARK: - Delivery

    /// Whether the current task is delivering this manager's events (a hook, or what a hook triggers).
    var isDelivering: Bool { DeliveryScope.managers.contains(ObjectIdentifier(self)) }

    /// Runs `body` marked as delivering this manager's events.
    func delivering<T>(_ body: () async -> T) async -> T {
        await DeliveryScope.$managers.withValue(DeliveryScope.managers.union([ObjectIdentifier(self)])) {
            await body()
        }
    }

    /// Runs a delivery that came from outside: after start when start is running, counted so that start waits
    /// for it otherwise. What hooks trigger runs at once.
    func gated<T>(_ body: () async -> T) async -> T {
        if isDelivering { return await body() }
        while true {
            let mustWait = state.withLock { state -> Bool in
                guard state.phase != .starting else { return true }
                state.inFlight += 1
                return false
            }
            if !mustWait { break }
            await ready()
        }
        let result = await delivering(body)
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
        return result
    }

    /// Delivers `event` to every module, in order (reverse order for tearDown; concurrent inits for async modules).
    func dispatch(_ event: ModuleEvent, parameters: [String: any Sendable]) async {
        let entries = state.withLock { $0.ordered() }
        if event == .initialize {
            await initialize(entries, parameters: parameters)
            return
        }
        for entry in event == .tearDown ? entries.reversed() : entries {
            await deliver(event, to: entry, parameters: parameters)
        }
    }

    /// Init for `entries` in order; modules declared async as child tasks, concurrently. Returns when all are done.
    func initialize(_ entries: [ModuleEntry], parameters: [String: any Sendable]) async {
        await withDiscardingTaskGroup { group in
            for entry in entries {
                if entry.isAsync {
                    group.addTask { await self.deliver(.initialize, to: entry, parameters: parameters) }
                } else {
                    await deliver(.initialize, to: entry, parameters: parameters)
                }
            }
        }
    }

    /// Delivers one event to one module, if it handles it: its hook (or modHandleEvent), then its subscriptions.
    func deliver(_ event: ModuleEvent, to entry: ModuleEntry, parameters: [String: any Sendable]) async {
        let (subscriptions, context, created) = state.withLock { state in
            (state.subscriptions[entry.name]?[event] ?? [], state.context, entry.readyInstance != nil)
        }
        let hasHook = event.isLifecycle || event.hasNamedHook
        // Only create the module for events it may handle. A module not created yet (before start) was never set
        // up: a named hook (willTerminate, memory warning, reload) does not create it, unless it lists the event.
        if !event.isLifecycle && subscriptions.isEmpty && !(event.hasNamedHook && created) {
            guard
                let type = entry.type
                    ?? TypeLookup.type(named: entry.name).flatMap({
                        Conformances.metatype($0, as: (any HiveModule.Type).self, path: hive.bindingPath)
                    }),
                type.events.contains(event)
            else { return }
        }
        guard let module = await instance(of: entry) else { return }
        var copy = context
        copy.event = event
        copy.eventParameters = parameters
        copy.moduleName = entry.name

        let type = ObjectIdentifier(Swift.type(of: module))
        var handled = false
        if hasHook {
            handled = await call(entry, event, HookKey(type: type, event: event, viaHandleEvent: false)) {
                try await Self.callHook(module, event, copy)
            }
        }
        if !handled && !event.isLifecycle && Swift.type(of: module).events.contains(event) {
            _ = await call(entry, event, HookKey(type: type, event: event, viaHandleEvent: true)) {
                try await module.modHandleEvent(event, copy)
            }
        }
        for subscription in subscriptions {
            await timed(entry, event, suffix: " subscription") { arguments in
                do {
                    try await subscription.handler(copy)
                } catch {
                    arguments.recordError(error)
                    reportFailure(of: entry, event: event, error: error)
                }
            }
        }
    }

    /// Calls one hook, unless the module's type is known not to implement it; whether it is implemented (a hook
    /// that threw is reported, and counts as implemented).
    private func call(
        _ entry: ModuleEntry, _ event: ModuleEvent, _ key: HookKey, _ hook: () async throws -> Void
    ) async -> Bool {
        if state.withLock({ $0.notImplemented.contains(key) }) { return false }
        return await timed(entry, event) { arguments in
            do {
                try await hook()
            } catch is HookNotImplemented {
                arguments.discard()
                state.withLock { _ = $0.notImplemented.insert(key) }
                return false
            } catch {
                arguments.recordError(error)
                reportFailure(of: entry, event: event, error: error)
            }
            return true
        }
    }

    /// The module's own hook for a lifecycle event or an event with a named hook.
    private static func callHook(
        _ module: any HiveModule, _ event: ModuleEvent, _ context: ModuleContext
    ) async throws {
        switch event {
        case .setUp: try await module.modSetUp(context)
        case .initialize: try await module.modInit(context)
        case .splash: try await module.modSplash(context)
        case .tearDown: try await module.modTearDown(context)
        case .unmount: try await module.modUnmount(context)
        case .willTerminate: try await module.modWillTerminate(context)
        case .didReceiveMemoryWarning: try await module.modDidReceiveMemoryWarning(context)
        case .reload: try await module.modReload(context)
        default: throw HookNotImplemented()
        }
    }

    private func reportFailure(of entry: ModuleEntry, event: ModuleEvent, error: any Error) {
        report(
            .moduleEventFailed,
            "expected module \(entry.name) to handle \(event); it threw \(error). The other modules still got the event",
            entry)
    }

    func moduleNotFound(_ name: String) -> HiveError {
        let known = state.withLock { $0.ordered().map(\.name) }
        return HiveError(
            .moduleNotFound,
            "expected a module named \(name); found none. Modules: \(known.isEmpty ? "none" : known.joined(separator: ", "))"
        )
    }
}
