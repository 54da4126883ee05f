import BeeHive

extension ModuleManager {
    /// Registers a module in code (BeeHive's `registerDynamicModule:shouldTriggerInitEvent:`).
    ///
    /// If the manager has started and `triggersInit` is true, the module gets setUp, init and splash now, each
    /// awaited; registered while ``start(parameters:)`` runs, it gets them once start has returned (unless start
    /// itself picked it up). Before start, it only joins the order. A module already declared under the same name
    /// (from a record, a file or code) stays one module: the existing one is kept and a duplicate is reported.
    ///
    /// ```swift
    /// try await manager.register(DebugMenuModule.self, level: .application)
    /// ```
    /// - Parameters:
    ///   - type: The module type.
    ///   - level: Its level; lower starts first.
    ///   - priority: Its priority within the level; higher starts first.
    ///   - isAsync: Whether start runs its init as a child task, concurrently with the other inits.
    ///   - triggersInit: Whether a started manager delivers setUp, init and splash to it at once.
    ///   - fileID: The file that registers, recorded in the declaration's source; leave the default.
    ///   - line: The line that registers, recorded with `fileID`; leave the default.
    /// - Returns: The module's declaration (the existing one for a duplicate).
    /// - Throws: `HiveError.Code.duplicateRegistration` in strict mode, for a duplicate.
    @discardableResult
    public func register(
        _ type: any HiveModule.Type, level: ModuleLevel = .normal, priority: Int = 0, isAsync: Bool = false,
        triggersInit: Bool = true, fileID: String = #fileID, line: Int = #line
    ) async throws(HiveError) -> ModuleDeclaration {
        let declaration = ModuleDeclaration(
            name: TypeLookup.name(of: type), level: level, priority: priority, isAsync: isAsync,
            source: .code(fileID: fileID, line: line))
        let (entry, existing) = state.withLock { state -> (ModuleEntry, ModuleEntry?) in
            if let existing = state.entries[declaration.name] { return (existing, existing) }
            let entry = ModuleEntry(declaration, type: type, sequence: state.sequence)
            state.add(entry)
            return (entry, nil)
        }
        if let existing {
            try hive.failIfStrict([
                Diagnostic(
                    hive.duplicateSeverity,
                    HiveError(
                        .duplicateRegistration,
                        "expected module \(declaration.name) to be registered once; it was declared before by "
                            + "\(existing.declaration.source), which is kept", source: declaration.source))
            ])
            return existing.declaration
        }
        guard triggersInit, state.withLock({ $0.phase != .idle }) else { return declaration }
        await gated {
            let claimed = state.withLock { state -> Bool in
                guard state.phase == .starting || state.phase == .started, !entry.lifecycleClaimed,
                    state.entries[entry.name] === entry
                else { return false }
                entry.lifecycleClaimed = true
                return true
            }
            guard claimed else { return }
            for event in [ModuleEvent.setUp, .initialize, .splash] {
                await deliver(event, to: entry, parameters: [:])
            }
        }
        return declaration
    }

    /// Removes a module, delivering tearDown and then unmount to it, each awaited (BeeHive's
    /// `unRegisterDynamicModule:`). A module never created gets neither.
    ///
    /// ```swift
    /// try await manager.unregister(moduleNamed: "App.DebugMenuModule")
    /// ```
    /// - Parameter name: The module's name.
    /// - Throws: `HiveError.Code.moduleNotFound` if no module has that name.
    public func unregister(moduleNamed name: String) async throws(HiveError) {
        guard let entry = state.withLock({ $0.entries[name] }) else { throw moduleNotFound(name) }
        await gated {
            if state.withLock({ _ in entry.readyInstance != nil }) {
                await deliver(.tearDown, to: entry, parameters: [:])
                await deliver(.unmount, to: entry, parameters: [:])
            }
        }
        let removed: (any HiveModule)? = state.withLock { state in
            guard state.entries[name] === entry else { return nil }
            state.entries[name] = nil
            state.subscriptions[name] = nil
            state.sorted = nil
            return entry.readyInstance
        }
        _ = removed  // released outside the lock: deinit is user code
    }

    /// Removes a module, delivering tearDown and then unmount to it.
    ///
    /// ```swift
    /// try await manager.unregister(DebugMenuModule.self)
    /// ```
    /// - Parameter type: The module type.
    /// - Throws: `HiveError.Code.moduleNotFound` if no module has that name.
    public func unregister(_ type: any HiveModule.Type) async throws(HiveError) {
        try await unregister(moduleNamed: TypeLookup.name(of: type))
    }

    /// Launches a module by name with parameters, awaiting its entry point (FisherMan's `launchModuleWithName:`).
    ///
    /// Called while ``start(parameters:)`` runs, it waits until start has returned.
    ///
    /// ```swift
    /// let order = try await manager.launch(moduleNamed: "Shop.TradeModule", parameters: ["orderID": 42])
    /// ```
    /// - Parameters:
    ///   - name: The module's name.
    ///   - parameters: Handed to ``HiveModule/modLaunch(_:_:)`` and set as the context's event parameters.
    /// - Returns: What the entry point returned.
    /// - Throws: `moduleNotFound`, `noEntryPoint`, `unknownType`/`notAModule` when it cannot be created,
    ///   or what the entry point threw.
    public func launch(
        moduleNamed name: String, parameters: [String: any Sendable] = [:]
    ) async throws -> (any Sendable)? {
        guard let entry = state.withLock({ $0.entries[name] }) else { throw moduleNotFound(name) }
        let result: Result<(any Sendable)?, any Error> = await gated {
            guard let module = await instance(of: entry) else {
                return .failure(
                    HiveError(
                        .moduleNotFound, "expected module \(name) to be created; it could not be (see diagnostics)",
                        source: entry.declaration.source))
            }
            var context = state.withLock { $0.context }
            context.eventParameters = parameters
            context.moduleName = name
            do {
                return .success(try await module.modLaunch(parameters, context))
            } catch is HookNotImplemented {
                return .failure(
                    HiveError(
                        .noEntryPoint,
                        "expected module \(name) to implement modLaunch(_:_:) to be launched; it does not",
                        source: entry.declaration.source))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
