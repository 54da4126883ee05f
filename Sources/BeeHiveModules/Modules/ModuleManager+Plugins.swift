import BeeHive

extension ModuleManager {
    /// Waits until the modules of plugins that joined or left the hive (`Hive.plugins`) have had
    /// their events: tearDown for a retired plugin's modules, and setUp, init and splash for the modules of a plugin
    /// that joined a started manager.
    ///
    /// ```swift
    /// let v2 = try hive.plugins.upgrade(v1, to: path)
    /// await ModuleManager.shared.pluginEventsDelivered()   // v1's modules torn down, v2's set up
    /// ```
    public func pluginEventsDelivered() async {
        await pluginWork.withLock { $0 }?.value
    }

    /// Follows a plugin of the hive: a retired plugin's modules leave the manager at once (no event reaches them
    /// afterwards) and get tearDown; a joining plugin's modules join, and get setUp, init and splash when the manager
    /// has started. Runs in order, one plugin event after the other.
    func follow(_ event: PluginEvent) {
        switch event {
        case .retired(let plugin, let modules):
            let names = Set(modules.map(\.name))
            let removed: [ModuleEntry] = state.withLock { state in
                var removed: [ModuleEntry] = []
                for name in names {
                    guard let entry = state.entries[name], entry.declaration.source.imageID == plugin.imageID else {
                        continue
                    }
                    state.entries[name] = nil
                    state.subscriptions[name] = nil
                    removed.append(entry)
                }
                if !removed.isEmpty { state.sorted = nil }
                return removed
            }
            guard !removed.isEmpty else { return }
            enqueue { manager in
                for entry in removed.reversed() where manager.state.withLock({ _ in entry.readyInstance != nil }) {
                    await manager.deliver(.tearDown, to: entry, parameters: [:])
                }
            }
        case .joined(_, let modules):
            guard !modules.isEmpty else { return }
            refresh()
            let names = Set(modules.map(\.name))
            enqueue { manager in
                await manager.gated {
                    let entries = manager.state.withLock { state -> [ModuleEntry] in
                        guard state.phase == .starting || state.phase == .started else { return [] }
                        let entries = state.ordered().filter { names.contains($0.name) && !$0.lifecycleClaimed }
                        for entry in entries { entry.lifecycleClaimed = true }
                        return entries
                    }
                    for event in [ModuleEvent.setUp, .initialize, .splash] {
                        for entry in entries { await manager.deliver(event, to: entry, parameters: [:]) }
                    }
                }
            }
        }
    }

    /// Runs `work` after the plugin work queued before it.
    private func enqueue(_ work: @escaping @Sendable (ModuleManager) async -> Void) {
        pluginWork.withLock { last in
            let previous = last
            last = Task { [self] in
                await previous?.value
                await work(self)
            }
        }
    }
}
