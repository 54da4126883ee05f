extension HiveError {
    /// No loaded type has the name a record, file or declaration gave.
    /// - Parameters:
    ///   - name: The type name looked up.
    ///   - role: What the type was for, e.g. "the implementation of App.Tracker".
    ///   - source: Where the name came from.
    package static func unknownType(
        _ name: String, role: String, isProtocol: Bool = false, source: RegistrationSource?
    ) -> HiveError {
        let closest = TypeLookup.closestNames(to: name, protocols: isProtocol)
        return HiveError(
            .unknownType,
            "expected a type named \(name) (\(role)) in a loaded image; \(TypeLookup.whatIsNamed(name))."
                + ClosestNames.hint(closest)
                + DiagnosticHints.unknownTypeCauses(name, isProtocol: isProtocol, closest: closest), source: source)
    }
}
