import BeeHive

extension ModuleManager {
    /// Registers a module in code (BeeHive's `registerDynamicModule:shouldTriggerInitEvent:`).
    ///
    /// If the manager has started and `triggersInit` is true, the module gets setUp, init and splash now.
    /// A module already declared under the same name (from a record, a file or code) stays one module:
    /// the existing one is kept and a duplicate is reported.
    ///
    /// ```swift
    /// try manager.register(DebugMenuModule.self, level: .application)
    /// ```
    /// - Parameters:
    ///   - type: The module type.
    ///   - level: Its level; lower starts first.
    ///   - priority: Its priority within the level; higher starts first.
    ///   - isAsync: Whether its init runs off the caller's thread.
    ///   - triggersInit: Whether a started manager delivers setUp, init and splash to it at once.
    /// - Returns: The module's declaration (the existing one for a duplicate).
    /// - Throws: ``HiveError/Code-swift.struct/duplicateRegistration`` in strict mode, for a duplicate.
    @discardableResult
    public func register(
        _ type: any HiveModule.Type, level: ModuleLevel = .normal, priority: Int = 0, isAsync: Bool = false,
        triggersInit: Bool = true, fileID: String = #fileID, line: Int = #line
    ) throws(HiveError) -> ModuleDeclaration {
        let declaration = ModuleDeclaration(
            name: TypeLookup.name(of: type), level: level, priority: priority, isAsync: isAsync,
            source: .code(fileID: fileID, line: line))
        let (entry, existing, started) = state.withLock { state -> (ModuleEntry, ModuleEntry?, Bool) in
            if let existing = state.entries[declaration.name] { return (existing, existing, false) }
            let entry = ModuleEntry(declaration, type: type, sequence: state.sequence)
            state.add(entry)
            return (entry, nil, state.phase == .started)
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
        if started && triggersInit {
            deliver(.setUp, to: entry, parameters: [:])
            if entry.isAsync {
                initialize([entry], parameters: [:])
                asyncInits.notify(queue: asyncQueue) { [self] in deliver(.splash, to: entry, parameters: [:]) }
            } else {
                deliver(.initialize, to: entry, parameters: [:])
                deliver(.splash, to: entry, parameters: [:])
            }
        }
        return declaration
    }

    /// Removes a module, delivering tearDown and then unmount to it (BeeHive's `unRegisterDynamicModule:`).
    /// - Parameter name: The module's name.
    /// - Throws: ``HiveError/Code-swift.struct/moduleNotFound`` if no module has that name.
    public func unregister(moduleNamed name: String) throws(HiveError) {
        guard let entry = state.withLock({ $0.entries[name] }) else { throw moduleNotFound(name) }
        if entry.readyInstance != nil {
            deliver(.tearDown, to: entry, parameters: [:])
            deliver(.unmount, to: entry, parameters: [:])
        }
        let removed: (any HiveModule)? = state.withLock { state in
            state.entries[name] = nil
            state.subscriptions[name] = nil
            state.sorted = nil
            return entry.readyInstance
        }
        _ = removed  // released outside the lock: deinit is user code
    }

    /// Removes a module, delivering tearDown and then unmount to it.
    public func unregister(_ type: any HiveModule.Type) throws(HiveError) {
        try unregister(moduleNamed: TypeLookup.name(of: type))
    }

    /// Launches a module by name with parameters, calling its entry point (FisherMan's `launchModuleWithName:`).
    ///
    /// ```swift
    /// let order = try manager.launch(moduleNamed: "Shop.TradeModule", parameters: ["orderID": 42])
    /// ```
    /// - Parameters:
    ///   - name: The module's name.
    ///   - parameters: Handed to ``HiveModule/modLaunch(_:_:)`` and set as the context's event parameters.
    /// - Returns: What the entry point returned.
    /// - Throws: `moduleNotFound`, `noEntryPoint`, `unknownType`/`notAModule` when it cannot be created,
    ///   or what the entry point threw.
    public func launch(moduleNamed name: String, parameters: [String: any Sendable] = [:]) throws -> (any Sendable)? {
        guard let entry = state.withLock({ $0.entries[name] }) else { throw moduleNotFound(name) }
        guard let module = instance(of: entry) else {
            throw HiveError(
                .moduleNotFound, "expected module \(name) to be created; it could not be (see diagnostics)",
                source: entry.declaration.source)
        }
        var context = state.withLock { $0.context }
        context.eventParameters = parameters
        context.moduleName = name
        do {
            return try module.modLaunch(parameters, context)
        } catch is HookNotImplemented {
            throw HiveError(
                .noEntryPoint, "expected module \(name) to implement modLaunch(_:_:) to be launched; it does not",
                source: entry.declaration.source)
        }
    }
}
