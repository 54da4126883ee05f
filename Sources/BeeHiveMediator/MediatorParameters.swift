import BeeHive
import BeeHiveRouter

/// The parameters of a mediator call, with typed accessors that throw explanatory errors.
///
/// Local calls may pass any `Sendable` value (objects, closures, data); URL calls pass percent-decoded strings.
/// The numeric and Boolean accessors accept both: `int("id")` reads `42` as well as `"42"`.
///
/// ```swift
/// .local("detail") { target, request in
///     let id = try request.parameters.int("id")
///     let onClose = try request.parameters.value("onClose", as: (@Sendable () -> Void).self)
///     return target.detail(id: id, onClose: onClose)
/// }
/// ```
public struct MediatorParameters: Sendable, CustomStringConvertible {
    /// The parameters by name.
    public let values: [String: any Sendable]

    /// Where the parameters come from, quoted in error messages.
    let origin: String

    /// Wraps a dictionary of parameters.
    ///
    /// - Parameter values: The parameters by name.
    public init(_ values: [String: any Sendable] = [:]) {
        self.init(values, origin: "the call")
    }

    init(_ values: [String: any Sendable], origin: String) {
        self.values = values
        self.origin = origin
    }

    /// The value of a parameter, or `nil` when it is absent.
    ///
    /// - Parameter name: The parameter name.
    public subscript(name: String) -> (any Sendable)? { values[name] }

    /// The parameter names, sorted.
    public var names: [String] { values.keys.sorted() }

    /// Reads a parameter of an exact type.
    ///
    /// - Parameters:
    ///   - name: The parameter name.
    ///   - type: The expected type.
    /// - Returns: The value.
    /// - Throws: ``MediatorError`` with code ``MediatorError/Code/missingParameter`` or
    ///   ``MediatorError/Code/invalidParameter``.
    public func value<Value>(_ name: String, as type: Value.Type = Value.self) throws(MediatorError) -> Value {
        let raw = try present(name)
        guard let value = raw as? Value else { throw invalid(name, raw, expected: "\(Value.self)") }
        return value
    }

    /// Reads a string parameter.
    ///
    /// - Parameter name: The parameter name.
    /// - Returns: The string.
    /// - Throws: ``MediatorError`` with code ``MediatorError/Code/missingParameter`` or
    ///   ``MediatorError/Code/invalidParameter``.
    public func string(_ name: String) throws(MediatorError) -> String {
        try value(name, as: String.self)
    }

    /// Reads an integer parameter given as an integer or as a string of digits.
    ///
    /// - Parameter name: The parameter name.
    /// - Returns: The integer.
    /// - Throws: ``MediatorError`` with code ``MediatorError/Code/missingParameter`` or
    ///   ``MediatorError/Code/invalidParameter``.
    public func int(_ name: String) throws(MediatorError) -> Int {
        let raw = try present(name)
        switch raw {
        case let value as Int: return value
        case let value as any BinaryInteger:
            if let converted = Int(exactly: value) { return converted }
        case let text as String:
            if let converted = Int(text) { return converted }
        default: break
        }
        throw invalid(name, raw, expected: "Int")
    }

    /// Reads a floating-point parameter given as a number or as a string.
    ///
    /// - Parameter name: The parameter name.
    /// - Returns: The number.
    /// - Throws: ``MediatorError`` with code ``MediatorError/Code/missingParameter`` or
    ///   ``MediatorError/Code/invalidParameter``.
    public func double(_ name: String) throws(MediatorError) -> Double {
        let raw = try present(name)
        switch raw {
        case let value as Double: return value
        case let value as Float: return Double(value)
        case let value as Int: return Double(value)
        case let text as String:
            if let converted = Double(text) { return converted }
        default: break
        }
        throw invalid(name, raw, expected: "Double")
    }

    /// Reads a Boolean parameter given as a `Bool` or as `true`/`false`, `yes`/`no`, `1`/`0`.
    ///
    /// - Parameter name: The parameter name.
    /// - Returns: The Boolean.
    /// - Throws: ``MediatorError`` with code ``MediatorError/Code/missingParameter`` or
    ///   ``MediatorError/Code/invalidParameter``.
    public func bool(_ name: String) throws(MediatorError) -> Bool {
        let raw = try present(name)
        switch raw {
        case let value as Bool: return value
        case let text as String:
            switch text.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: break
            }
        default: break
        }
        throw invalid(name, raw, expected: "Bool")
    }

    private func present(_ name: String) throws(MediatorError) -> any Sendable {
        guard let raw = values[name] else {
            let available = names.isEmpty ? "there are none" : "available: \(names.joined(separator: ", "))"
            throw MediatorError(
                .missingParameter,
                "parameter '\(name)' of \(origin): expected a value, found none (\(available))"
            )
        }
        return raw
    }

    private func invalid(_ name: String, _ raw: any Sendable, expected: String) -> MediatorError {
        MediatorError(
            .invalidParameter,
            "parameter '\(name)' of \(origin): expected \(expected), found \(type(of: raw)) \(String(reflecting: raw))"
        )
    }

    /// The parameters sorted by name, for logs.
    public var description: String {
        "[" + names.map { "\($0): \(String(reflecting: values[$0]!))" }.joined(separator: ", ") + "]"
    }
}
