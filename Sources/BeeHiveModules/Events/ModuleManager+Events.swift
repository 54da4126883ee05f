import BeeHive
import Dispatch

extension ModuleManager {
    /// Delivers `event` to every module that handles it, in order (reverse order for ``ModuleEvent/tearDown``).
    ///
    /// A module gets a lifecycle event if it implements that hook, and any other event if it lists the
    /// event in ``HiveModule/events`` or subscribed to it. Each handler gets its own copy of the context,
    /// carrying the event and `parameters`. A handler that throws is reported (a diagnostic naming the
    /// module, the event and the error) and the other modules still get the event. No lock is held
    /// while handlers run.
    ///
    /// ```swift
    /// manager.trigger(.didEnterBackground)
    /// manager.trigger(try .custom(1001), parameters: ["cart": 3])
    /// ```
    /// - Parameters:
    ///   - event: The event.
    ///   - parameters: The event's parameters (BeeHive's `customParam`).
    public func trigger(_ event: ModuleEvent, parameters: [String: any Sendable] = [:]) {
        let entries = state.withLock { $0.ordered() }
        if event == .initialize {
            initialize(entries, parameters: parameters)
            return
        }
        for entry in event == .tearDown ? entries.reversed() : entries {
            deliver(event, to: entry, parameters: parameters)
        }
    }

    /// Delivers the custom event `value` (BeeHive's `triggerCustomEvent:`).
    /// - Parameters:
    ///   - value: The event's number, 1000 or more.
    ///   - parameters: The event's parameters.
    /// - Throws: ``HiveError/Code-swift.struct/invalidCustomEvent`` for a number below 1000 (also recorded
    ///   as a diagnostic); nothing is delivered.
    public func triggerCustomEvent(_ value: Int, parameters: [String: any Sendable] = [:]) throws(HiveError) {
        let event: ModuleEvent
        do {
            event = try ModuleEvent.custom(value)
        } catch {
            hive.record([Diagnostic(.error, error)])
            throw error
        }
        trigger(event, parameters: parameters)
    }

    /// Calls `handler` whenever `event` reaches the module named `module`, in that module's turn.
    ///
    /// Subscriptions belong to one module: two modules subscribing to one custom event each get their own
    /// handler called (BeeHive kept the first module's selector for everyone).
    /// - Parameters:
    ///   - module: The module's name.
    ///   - event: The event.
    ///   - handler: Called with the context carrying the event; without any lock held.
    /// - Throws: ``HiveError/Code-swift.struct/moduleNotFound`` if no module has that name.
    public func subscribe(
        module: String, to event: ModuleEvent, handler: @escaping @Sendable (ModuleContext) throws -> Void
    ) throws(HiveError) {
        let found = state.withLock { state -> Bool in
            guard state.entries[module] != nil else { return false }
            state.sequence += 1
            state.subscriptions[module, default: [:]][event, default: []].append(
                Subscription(id: state.sequence, handler: handler))
            return true
        }
        if !found { throw moduleNotFound(module) }
    }

    /// Runs setUp, then init (async modules off this thread), then splash once every init has finished.
    ///
    /// First, as BeeHive does when its context is set, the files named by the context's
    /// ``ModuleContext/moduleConfigName`` and ``ModuleContext/serviceConfigName`` are loaded into the hive
    /// (problems become diagnostics; the modules and services that load are used).
    ///
    /// Returns when the synchronous inits are done; ``waitUntilReady()`` waits for the rest.
    /// - Parameter parameters: Parameters for the three events.
    public func start(parameters: [String: any Sendable] = [:]) {
        let first = state.withLock { state -> Bool in
            defer { if state.phase == .idle { state.phase = .started } }
            return state.phase == .idle
        }
        guard first else { return }
        loadConfiguredFiles()
        refresh()
        trigger(.setUp, parameters: parameters)
        trigger(.initialize, parameters: parameters)
        asyncInits.notify(queue: asyncQueue) { [self] in
            trigger(.splash, parameters: parameters)
            readyGroup.leave()
        }
    }

    /// Blocks until every module's init (async ones included) and the splash event are done.
    public func waitUntilReady() {
        readyGroup.wait()
    }

    /// Waits until every module's init (async ones included) and the splash event are done.
    public func ready() async {
        await withCheckedContinuation { continuation in
            readyGroup.notify(queue: asyncQueue) { continuation.resume() }
        }
    }

    /// Delivers ``ModuleEvent/willTerminate`` then ``ModuleEvent/tearDown`` (reverse order), once.
    public func terminate(parameters: [String: any Sendable] = [:]) {
        let first = state.withLock { state -> Bool in
            defer { state.phase = .terminated }
            return state.phase != .terminated
        }
        guard first else { return }
        trigger(.willTerminate, parameters: parameters)
        trigger(.tearDown, parameters: parameters)
    }

    /// Loads the module and service files the context names, once.
    private func loadConfiguredFiles() {
        let context = state.withLock { $0.context }
        if let path = context.serviceConfigName { _ = try? hive.loadServices(from: path) }
        if let path = context.moduleConfigName { _ = try? hive.loadModules(from: path) }
    }

    // MARK: - Delivery

    /// Init for `entries` in order; async modules on the async queue.
    func initialize(_ entries: [ModuleEntry], parameters: [String: any Sendable]) {
        for entry in entries {
            if entry.isAsync {
                asyncInits.enter()
                asyncQueue.async { [self] in
                    deliver(.initialize, to: entry, parameters: parameters)
                    asyncInits.leave()
                }
            } else {
                deliver(.initialize, to: entry, parameters: parameters)
            }
        }
    }

    /// Delivers one event to one module, if it handles it.
    func deliver(_ event: ModuleEvent, to entry: ModuleEntry, parameters: [String: any Sendable]) {
        let (subscriptions, context, skipHook) = state.withLock { state in
            let subscriptions = state.subscriptions[entry.name]?[event] ?? []
            let skip =
                entry.readyInstance.map {
                    state.notImplemented.contains(HookKey(type: ObjectIdentifier(type(of: $0)), event: event))
                } ?? false
            return (subscriptions, state.context, skip)
        }
        // Only create the module for events it may handle.
        if !event.isLifecycle && subscriptions.isEmpty {
            guard let type = entry.type ?? TypeLookup.type(named: entry.name) as? any HiveModule.Type,
                type.events.contains(event)
            else { return }
        }
        guard let module = instance(of: entry) else { return }
        var copy = context
        copy.event = event
        copy.eventParameters = parameters
        copy.moduleName = entry.name

        let wantsHook = event.isLifecycle || type(of: module).events.contains(event)
        if wantsHook && !skipHook {
            let start = profiler.isEnabled ? TimeProfiler.now() : 0
            do {
                try call(module, event, copy)
                if start != 0 { profiler.record(module: entry.name, event: event, start: start) }
            } catch is HookNotImplemented {
                state.withLock {
                    _ = $0.notImplemented.insert(HookKey(type: ObjectIdentifier(type(of: module)), event: event))
                }
            } catch {
                reportFailure(of: entry, event: event, error: error)
            }
        }
        for subscription in subscriptions {
            let start = profiler.isEnabled ? TimeProfiler.now() : 0
            do {
                try subscription.handler(copy)
                if start != 0 { profiler.record(module: entry.name, event: event, start: start) }
            } catch {
                reportFailure(of: entry, event: event, error: error)
            }
        }
    }

    private func call(_ module: any HiveModule, _ event: ModuleEvent, _ context: ModuleContext) throws {
        switch event {
        case .setUp: try module.modSetUp(context)
        case .initialize: try module.modInit(context)
        case .splash: try module.modSplash(context)
        case .tearDown: try module.modTearDown(context)
        case .unmount: try module.modUnmount(context)
        default: try module.modHandleEvent(event, context)
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
