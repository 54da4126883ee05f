extension Hive {
    /// What this hive holds now: every service registration, module and route with its source and state, what was
    /// withdrawn, and the problems kept. One short step under the hive's lock; nothing is looked up or created.
    ///
    /// ```swift
    /// let report = Hive.shared.report()
    /// print(report.services.map { "\($0.service) -> \($0.implementation): \($0.state)" })
    /// ```
    /// - Returns: The report; encode it with `JSONEncoder` for the schema of `Docs/Report.md`.
    public func report() -> HiveReport {
        let plugins = Dictionary(
            plugins.active.map { ($0.imageID, $0.path) }, uniquingKeysWith: { first, _ in first })
        let plugin = { (source: RegistrationSource) in source.imageID.flatMap { plugins[$0] } }
        var report = HiveReport()
        state.withLock { state in
            for serving in state.serviceOrder {
                report.services.append(.init(serving, state: nil, plugin: plugin))
                for waiting in state.shadowedServices[serving.registration.key]?.queue ?? [] {
                    report.services.append(.init(waiting.element, state: .waiting, plugin: plugin))
                }
            }
            report.modules = state.moduleOrder.compactMap { state.modules[$0] }.map {
                .init(
                    module: $0.name, level: $0.level.rawValue, priority: $0.priority, async: $0.isAsync,
                    source: .init($0.source), plugin: plugin($0.source))
            }
            report.routes = state.routes.map {
                .init(pattern: $0.pattern, handler: $0.handler, source: .init($0.source), plugin: plugin($0.source))
            }
            report.withdrawn = state.withdrawn.map {
                .init(service: $0.key.service, name: $0.key.name, reason: $0.value)
            }
            .sorted { ($0.service, $0.name ?? "") < ($1.service, $1.name ?? "") }
            report.problems = state.diagnostics.elements.map {
                .init(
                    severity: $0.severity.description, code: $0.code.description, message: $0.message,
                    source: $0.source.map(HiveReport.Source.init))
            }
            report.droppedProblems = state.diagnostics.dropped
        }
        return report
    }
}

extension HiveReport.Service {
    /// The report of `entry`, read under the hive's lock; `state` nil: from its provider and slot.
    init(_ entry: ServiceEntry, state: HiveReport.State?, plugin: (RegistrationSource) -> String?) {
        let registration = entry.registration
        var scope: String?
        var reason: String?
        var current: HiveReport.State
        switch entry.provider {
        case .typeName: current = .declared
        case .implementation: current = .bound
        case .factory(let factoryScope, _):
            current = .bound
            scope = factoryScope == .singleton ? "singleton" : "transient"
        case .unresolvable(let unresolvable):
            current = .unresolvable
            reason = unresolvable.error.message
        }
        if entry.cachedInstance != nil { current = .created }
        self.init(
            service: registration.service, name: registration.name, implementation: registration.implementation,
            rank: registration.rank == 0 ? nil : registration.rank,
            properties: registration.properties.isEmpty ? nil : registration.properties, scope: scope,
            state: state ?? current, reason: reason, source: .init(registration.source),
            plugin: plugin(registration.source), apiVersion: registration.apiVersion)
    }
}

extension HiveReport.Source {
    /// The report of `source`.
    init(_ source: RegistrationSource) {
        let kind: String
        var location: String?
        if source.sectionName != nil {
            kind = "annotation"
            location = source.annotationFile.map { "\($0):\(source.annotationLine ?? 0)" }
        } else if source.imagePath != nil {
            kind = "image"
        } else if source.filePath != nil {
            kind = "file"
        } else {
            kind = "code"
            location = source.callSite
        }
        self.init(
            kind: kind, location: location, image: source.imagePath, section: source.sectionName,
            offset: source.recordOffset, file: source.filePath, entry: source.entryIndex,
            description: source.description)
    }
}
