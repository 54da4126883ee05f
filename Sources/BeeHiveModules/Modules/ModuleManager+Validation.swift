import BeeHive

extension ModuleManager {
    /// Checks every declared module now, instead of when its first event reaches it: the type must be loaded and
    /// conform to ``HiveModule``. Nothing is created.
    ///
    /// `Hive.validate()` finds module types that are not loaded; this also finds types that are not modules, which
    /// only this product can tell.
    ///
    /// ```swift
    /// try ModuleManager.shared.validate()
    /// ```
    /// - Throws: `HiveError` with code `validationFailed`, listing each problem (`unknownType`, `notAModule`) with
    ///   the declaration's source; each is also recorded in the hive's diagnostics.
    public func validate() throws(HiveError) {
        refresh()
        var problems: [HiveError] = []
        for declaration in modules {
            do throws(HiveError) {
                _ = try moduleType(of: declaration)
            } catch {
                problems.append(error)
            }
        }
        try hive.failValidation(problems, expected: "every declared module to be valid")
    }
}
