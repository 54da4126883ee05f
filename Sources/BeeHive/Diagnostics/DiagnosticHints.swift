/// The hints a diagnostic may end with, each given only when it can explain the case at hand: a message that always
/// ends with the same advice teaches its reader to skip the advice.
enum DiagnosticHints {
    /// Whether `closest` holds a name that `name` is a likely typo of: it differs in case only, or by at most two
    /// letters inserted, removed or changed.
    static func isLikelyTypo(of name: String, closest: [String]) -> Bool {
        let bytes = Array(name.utf8)
        return closest.contains { candidate in
            candidate.lowercased() == name.lowercased()
                || ClosestNames.editDistance(bytes, Array(candidate.utf8)) <= 2
        }
    }

    /// What may explain that no loaded type is named `name`, beyond the closest names: a name without its module,
    /// and, for a type (not a protocol) that no close name explains as a typo, release builds removing internal
    /// structs and enums. Empty when neither applies.
    static func unknownTypeCauses(_ name: String, isProtocol: Bool, closest: [String]) -> String {
        var hints = ""
        if !name.contains(".") {
            hints += " Names are module-qualified (Module.Type)."
        }
        // A protocol that a type conforms to is kept by the optimizer, and a typo is the likelier cause when a name
        // two letters away exists.
        if !isProtocol && !isLikelyTypo(of: name, closest: closest) {
            hints +=
                " If the type exists: in release builds the compiler removes internal structs and enums that no code "
                + "references, so make types named only by records public."
        }
        return hints
    }

    /// Whether the record of `registration` was written by a Swift annotation (`@BeeHiveService`, whose record's
    /// file is a Swift file): only then can a service name that differs from the annotation's protocol come from a
    /// typealias. A C record or a file entry that names another service is a different mistake (a typo).
    static func isSwiftAnnotation(_ registration: ServiceRegistration) -> Bool {
        registration.source.annotationFile?.hasSuffix(".swift") == true
    }
}
