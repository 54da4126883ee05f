internal import _BeeHiveDiscovery

extension Hive {
    /// Serves the API versions that newly loaded images declare; reports a protocol declared again at another
    /// version (a second copy of its module), which is not served.
    func serve(_ declarations: [APIDeclaration]) -> [Diagnostic] {
        guard !declarations.isEmpty else { return [] }
        return servedAPIs.withLock { $0.serve(declarations) }.map { declaration, served in
            Diagnostic(
                .warning,
                HiveError(
                    .incompatibleAPIVersion,
                    "expected \(declaration.record.api)'s API to be declared by one loaded image; it is declared "
                        + "again at \(declaration.record.version) (\(served.record.version) at \(served.source) is "
                        + "served): a second copy of its module is loaded", source: declaration.source))
        }
    }

    /// Refuses the services built against a version of their API that the process does not serve (another major
    /// version, or a newer minor version), and returns why. A plugin's services are also checked against the APIs the
    /// plugin declares itself (`own`) when the host declares none of them, and a plugin's service that says no
    /// version for a versioned API is reported (a warning: it joins, unchecked).
    func checkAPIVersions(
        of services: inout [ServiceEntry], own: [APIDeclaration] = [], isPlugin: Bool
    ) -> [Diagnostic] {
        let served = servedAPIs.withLock { $0 }
        guard !served.isEmpty || !own.isEmpty else { return [] }
        var problems: [Diagnostic] = []
        services.removeAll { entry in
            let registration = entry.registration
            guard
                let host = served[registration.service]
                    ?? own.first(where: { $0.record.api == registration.service })
            else { return false }
            let serving = host.record.version
            let servedAt = "\(serving), declared at \(host.source)"
            guard let text = registration.apiVersion, let built = APIVersion(text) else {
                if isPlugin {
                    problems.append(
                        Diagnostic(
                            .warning,
                            HiveError(
                                .unversionedImplementation,
                                "expected \(registration.implementation) to say which version of "
                                    + "\(registration.service)'s API it was built against (this process serves "
                                    + "\(servedAt)); it says none, so it joined unchecked. Rebuild it against the API "
                                    + "module, whose protocol declares its version (@BeeHiveAPI)",
                                source: registration.source)))
                }
                return false
            }
            guard !serving.accepts(builtAgainst: built) else { return false }
            problems.append(
                Diagnostic(
                    .error,
                    HiveError(
                        .incompatibleAPIVersion,
                        "expected an implementation of \(registration.service) built against its API "
                            + "\(serving.acceptedRange), which this process serves (\(servedAt)); "
                            + "\(registration.implementation) was built against \(built). Rebuild it against the API "
                            + "module the host loads", source: registration.source)))
            return true
        }
        return problems
    }
}
