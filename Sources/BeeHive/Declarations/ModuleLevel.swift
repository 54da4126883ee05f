/// When a module starts relative to others: lower levels first, then higher priority first.
///
/// BeeHive has two levels, basic (0) and normal (1). The modular tiers of the BeeHivePlus proposal
/// map onto them: capability modules (networking, storage) are basic, feature modules are normal,
/// and application modules (the app shell that wires features together) come last.
public struct ModuleLevel: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The level's value; lower starts first.
    public let rawValue: Int

    /// Creates a level from its value.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// BeeHive's basic level (0): started before normal modules.
    public static let basic = ModuleLevel(rawValue: 0)
    /// BeeHive's normal level (1), the default.
    public static let normal = ModuleLevel(rawValue: 1)
    /// The capability tier: the same as ``basic``.
    public static let capability = basic
    /// The feature tier: the same as ``normal``.
    public static let feature = normal
    /// The application tier (2): started after every feature.
    public static let application = ModuleLevel(rawValue: 2)

    /// The level named `name` (basic, normal, capability, feature, application), or nil.
    public init?(named name: String) {
        switch name.lowercased() {
        case "basic", "capability": self = .basic
        case "normal", "feature": self = .normal
        case "application": self = .application
        default: return nil
        }
    }

    public static func < (a: ModuleLevel, b: ModuleLevel) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch rawValue {
        case 0: "basic"
        case 1: "normal"
        case 2: "application"
        default: "level \(rawValue)"
        }
    }
}
