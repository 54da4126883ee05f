import BeeHive

/// The string parameters of an opened URL, with typed accessors that throw explanatory errors.
///
/// A router fills it from the URL's query items, then from the pattern's `:name` captures, so a path capture
/// wins over a query item of the same name (`app://user/5?id=7` opened on `app://user/:id` gives `id == "5"`).
/// For a name repeated in the query, the last value wins. Values are percent-decoded.
///
/// ```swift
/// try router.register(pattern: "app://user/:id") { request in
///     let id = try request.parameters.int("id")          // throws RouterError.invalidParameter for "abc"
///     let tab = request.parameters["tab"] ?? "profile"   // optional access
///     return UserScreen(id: id, tab: tab)
/// }
/// ```
public struct RouteParameters: Sendable, Equatable, CustomStringConvertible {
    /// The parameters by name.
    public let values: [String: String]

    /// Where the parameters come from, quoted in error messages (for example `'app://user/5' (route …)`).
    let origin: String

    /// Wraps a dictionary of parameters, for example to call an ``ActionHandling`` service directly.
    ///
    /// - Parameter values: The parameters by name.
    public init(_ values: [String: String] = [:]) {
        self.init(values, origin: "the given parameters")
    }

    init(_ values: [String: String], origin: String) {
        self.values = values
        self.origin = origin
    }

    /// The value of a parameter, or `nil` when it is absent.
    ///
    /// - Parameter name: The parameter name.
    public subscript(name: String) -> String? { values[name] }

    /// Whether there are no parameters.
    public var isEmpty: Bool { values.isEmpty }

    /// The parameter names, sorted.
    public var names: [String] { values.keys.sorted() }

    /// Reads a parameter that must be present.
    ///
    /// - Parameter name: The parameter name.
    /// - Returns: The value.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/missingParameter``.
    public func string(_ name: String) throws(RouterError) -> String {
        guard let value = values[name] else {
            let available = names.isEmpty ? "there are none" : "available: \(names.joined(separator: ", "))"
            throw RouterError(
                .missingParameter,
                "parameter '\(name)' of \(origin): expected a value, found none (\(available))"
            )
        }
        return value
    }

    /// Reads a parameter as any type that can be made from a string, such as `Int`, `Double` or `UInt8`.
    ///
    /// - Parameters:
    ///   - name: The parameter name.
    ///   - type: The type to convert to.
    /// - Returns: The converted value.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/missingParameter`` or
    ///   ``RouterError/Code/invalidParameter``.
    public func value<Value: LosslessStringConvertible>(
        _ name: String,
        as type: Value.Type = Value.self
    ) throws(RouterError) -> Value {
        let text = try string(name)
        guard let value = Value(text) else { throw invalid(name, text, expected: "\(Value.self)") }
        return value
    }

    /// Reads an integer parameter.
    ///
    /// - Parameter name: The parameter name.
    /// - Returns: The integer.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/missingParameter`` or
    ///   ``RouterError/Code/invalidParameter``.
    public func int(_ name: String) throws(RouterError) -> Int {
        try value(name, as: Int.self)
    }

    /// Reads a floating-point parameter.
    ///
    /// - Parameter name: The parameter name.
    /// - Returns: The number.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/missingParameter`` or
    ///   ``RouterError/Code/invalidParameter``.
    public func double(_ name: String) throws(RouterError) -> Double {
        try value(name, as: Double.self)
    }

    /// Reads a Boolean parameter spelled `true`/`false`, `yes`/`no` or `1`/`0` (any case).
    ///
    /// - Parameter name: The parameter name.
    /// - Returns: The Boolean.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/missingParameter`` or
    ///   ``RouterError/Code/invalidParameter``.
    public func bool(_ name: String) throws(RouterError) -> Bool {
        let text = try string(name)
        switch text.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: throw invalid(name, text, expected: "Bool (true/false, yes/no, 1/0)")
        }
    }

    private func invalid(_ name: String, _ text: String, expected: String) -> RouterError {
        RouterError(.invalidParameter, "parameter '\(name)' of \(origin): expected \(expected), found \"\(text)\"")
    }

    /// Compares the values only.
    public static func == (lhs: RouteParameters, rhs: RouteParameters) -> Bool {
        lhs.values == rhs.values
    }

    /// The parameters sorted by name, for logs.
    public var description: String {
        "[" + names.map { "\($0): \(values[$0]!)" }.joined(separator: ", ") + "]"
    }
}
