import BeeHive

/// A thread-safe dictionary of settings shared by modules: BeeHive's `BHConfig`.
///
/// ```swift
/// let config = HiveConfig()
/// config.set("api.timeout", 30)
/// let timeout = config.integer("api.timeout") ?? 10
/// ```
public final class HiveConfig: Sendable {
    private let values = LockedValue<[String: any Sendable]>([:])

    /// Creates a configuration.
    /// - Parameter values: Initial values.
    public init(_ values: [String: any Sendable] = [:]) {
        self.values.withLock { $0 = values }
    }

    /// The value for `key`, if any.
    public func get(_ key: String) -> (any Sendable)? { values.withLock { $0[key] } }

    /// Whether `key` has a value.
    public func has(_ key: String) -> Bool { values.withLock { $0[key] != nil } }

    /// Sets `key` to `value` (nil removes it).
    public func set(_ key: String, _ value: (any Sendable)?) { values.withLock { $0[key] = value } }

    /// Adds every pair of `parameters`, replacing existing keys.
    public func add(_ parameters: [String: any Sendable]) {
        values.withLock { $0.merge(parameters) { _, new in new } }
    }

    /// Every key and value.
    public var all: [String: any Sendable] { values.withLock { $0 } }

    /// Removes every value.
    public func clear() { values.withLock { $0.removeAll() } }

    /// The string for `key`; numbers and booleans are converted.
    public func string(_ key: String) -> String? {
        switch get(key) {
        case let s as String: s
        case let i as Int: String(i)
        case let d as Double: String(d)
        case let b as Bool: String(b)
        default: nil
        }
    }

    /// The integer for `key`; strings of digits are converted.
    public func integer(_ key: String) -> Int? {
        switch get(key) {
        case let i as Int: i
        case let s as String: Int(s)
        case let d as Double: Int(exactly: d)
        default: nil
        }
    }

    /// The number for `key`; integers and numeric strings are converted.
    public func double(_ key: String) -> Double? {
        switch get(key) {
        case let d as Double: d
        case let i as Int: Double(i)
        case let s as String: Double(s)
        default: nil
        }
    }

    /// The boolean for `key`; `"true"`, `"false"`, `"1"`, `"0"` and integers are converted.
    public func bool(_ key: String) -> Bool? {
        switch get(key) {
        case let b as Bool: b
        case let i as Int: i != 0
        case let s as String:
            ["true": true, "1": true, "yes": true, "false": false, "0": false, "no": false][s.lowercased()]
        default: nil
        }
    }

    /// The array for `key`.
    public func array(_ key: String) -> [any Sendable]? { get(key) as? [any Sendable] }

    /// The dictionary for `key`.
    public func dictionary(_ key: String) -> [String: any Sendable]? { get(key) as? [String: any Sendable] }
}
