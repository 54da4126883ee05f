import BeeHive
import BeeHiveRouter

extension Mediator {
    /// The process-wide mediator: finds `Target_X` types by module-qualified name in the loaded images.
    ///
    /// ```swift
    /// let view = try Mediator.shared.perform(target: "Shop.Target_Cart", action: "show", params: ["id": 7])
    /// ```
    public static let shared = Mediator { name in TypeLookup.type(named: name) }
}
