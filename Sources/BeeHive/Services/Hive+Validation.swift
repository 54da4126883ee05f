extension Hive {
    /// Looks up every type the hive's registrations name now, instead of on first use, and fails if anything is
    /// wrong.
    ///
    /// Type names of annotation records and files are normally looked up lazily, when a service is
    /// first created. Call this at startup (or in a test) to find, before a user does: unknown service
    /// implementations, implementations that do not conform to ``ServiceImplementation`` or to the service their
    /// registration names, services that name no protocol of a loaded image, and unknown module and route handler
    /// types (a typo in a `BH_MODULE` would otherwise leave the module silently never run). Unknown names come with
    /// the closest names the loaded images have. Nothing is instantiated. Whether a module type conforms to
    /// `HiveModule` and a handler to `RouteHandler` is for the products that define them to check:
    /// `ModuleManager.validate()` and `Router.validateDeclaredRoutes(in:)`.
    ///
    /// ```swift
    /// try Hive.shared.validate()
    /// ```
    /// - Throws: ``HiveError`` `validationFailed` listing every error-severity diagnostic, when there is one.
    public func validate() throws(HiveError) {
        let pending: [(ServiceEntry, Provider)] = state.withLock { state in
            state.serviceOrder.compactMap { entry in
                guard case .typeName = entry.provider else { return nil }
                return (entry, entry.provider)
            }
        }
        for (entry, provider) in pending { _ = try? resolve(provider, of: entry) }
        record(unknownDeclaredTypes() + nonConformingImplementations())
        let errors = diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else {
            let lines = errors.map { "  - \($0.error)" }.joined(separator: "\n")
            throw HiveError(.validationFailed, "expected no errors; found \(errors.count):\n\(lines)")
        }
    }
}

extension Hive {
    /// For every registration by type or by name (not factories, which the compiler checked): a `doesNotConform`
    /// error when its implementation does not conform to its service (a warning when the service is a protocol that
    /// two images define and it conforms to one copy only), and an `unknownType` error when the service names no
    /// type or protocol of a loaded image. Once per registration.
    func nonConformingImplementations() -> [Diagnostic] {
        let entries = state.withLock { state in state.serviceOrder }
        var found: [Diagnostic] = []
        for entry in entries {
            guard case .implementation(let type, _) = entry.provider else { continue }
            let registration = entry.registration
            // The names of the services a Swift annotation gave this implementation, when it has a typed record.
            let annotated =
                TypedRecords.implementation(named: registration.implementation)?.services.names ?? []
            // Only the annotation's own record can carry an alias's name; another record (C, a file) that names
            // another service is checked below like any other, and a typo there gets the closest names.
            if !annotated.isEmpty, !annotated.contains(registration.service),
                DiagnosticHints.isSwiftAnnotation(registration)
            {
                found.append(
                    Diagnostic(
                        .error,
                        HiveError(
                            .unknownType,
                            "expected the record's service \(registration.service) to name the type the annotation "
                                + "gives (\(annotated.joined(separator: ", "))); it does not: a typealias gives the "
                                + "alias's name, which no request by type finds; name the protocol itself",
                            source: registration.source)))
                continue
            }
            // A composition ("App.A & App.B") or a generic service has no single declaration to check against.
            guard registration.service.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }),
                let declared = TypeLookup.declarations(named: registration.service)
            else { continue }
            if declared.isEmpty {
                found.append(
                    Diagnostic(
                        .error,
                        .unknownType(
                            registration.service, role: "the service \(registration.implementation) implements",
                            isProtocol: true, source: registration.source)))
                continue
            }
            let (conforming, copies) = TypeLookup.conformance(of: type, toProtocolNamed: registration.service)
            if conforming < copies {
                // Conforming to one copy of a protocol defined twice works only for those who ask for that copy.
                let severity: Diagnostic.Severity = conforming == 0 ? .error : .warning
                found.append(Diagnostic(severity, .doesNotConform(registration, service: registration.service)))
            }
        }
        let reported = Set(diagnostics.map(\.error))
        return found.filter { !reported.contains($0.error) }
    }

    /// An `unknownType` error for every module and route handler named by a declaration but not loaded, once per
    /// declaration (a second validation does not repeat it).
    func unknownDeclaredTypes() -> [Diagnostic] {
        var found: [HiveError] = []
        for module in moduleDeclarations where TypeLookup.type(named: module.name) == nil {
            found.append(.unknownType(module.name, role: "a module", source: module.source))
        }
        for route in routeDeclarations where TypeLookup.type(named: route.handler) == nil {
            found.append(.unknownType(route.handler, role: "the handler of \(route.pattern)", source: route.source))
        }
        let reported = diagnostics.compactMap { $0.code == .unknownType ? $0.message : nil }
        return found.filter { !reported.contains($0.message) }.map { Diagnostic(.error, $0) }
    }
}

extension Hive {
    /// Records `problems` as errors and throws `validationFailed` listing them; returns when there are none.
    /// The products' own validations (modules, routes) end with it.
    ///
    /// - Parameters:
    ///   - problems: What the validation found.
    ///   - expected: What was expected, for the message: "every declared module to be valid".
    package func failValidation(_ problems: [HiveError], expected: String) throws(HiveError) {
        guard !problems.isEmpty else { return }
        record(problems.map { Diagnostic(.error, $0) })
        let lines = problems.map { "  - \($0)" }.joined(separator: "\n")
        throw HiveError(.validationFailed, "expected \(expected); found \(problems.count):\n\(lines)")
    }
}
