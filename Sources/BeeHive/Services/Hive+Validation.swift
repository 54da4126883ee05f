extension Hive {
    /// Looks up every implementation type now, instead of on first use, and fails if anything is wrong.
    ///
    /// Type names of annotation records and files are normally looked up lazily, when a service is
    /// first created. Call this at startup (or in a test) to find unknown types and types that do not
    /// conform to ``ServiceImplementation`` before a user does. Nothing is instantiated.
    ///
    /// ```swift
    /// try Hive.shared.validate()
    /// ```
    /// - Throws: ``HiveError`` `validationFailed` listing every error-severity diagnostic, when there is one.
    public func validate() throws(HiveError) {
        let pending: [(ServiceEntry, Provider)] = state.withLock { state in
            state.serviceOrder.compactMap { key in
                guard let entry = state.services[key], case .typeName = entry.provider else { return nil }
                return (entry, entry.provider)
            }
        }
        for (entry, provider) in pending { _ = try? resolve(provider, of: entry) }
        let errors = diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else {
            let lines = errors.map { "  - \($0.error)" }.joined(separator: "\n")
            throw HiveError(.validationFailed, "expected no errors; found \(errors.count):\n\(lines)")
        }
    }
}
