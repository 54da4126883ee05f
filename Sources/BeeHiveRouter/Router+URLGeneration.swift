import BeeHive

extension Router {
    /// Builds a URL from a pattern by filling its `:name` components (and `~`) with percent-encoded values.
    ///
    /// Parameters the pattern does not use become query items, sorted by name. Literal components are kept as
    /// written. A value may contain anything (`/`, `?`, `://`, non-ASCII text): opening the result on the same
    /// pattern gives the values back. The value for `~` is a path: its `/` separate components.
    ///
    /// ```swift
    /// try Router.generateURL(pattern: "app://user/:id", parameters: ["id": 42, "tab": "posts"])
    /// // "app://user/42?tab=posts"
    /// try Router.generateURL(pattern: "app://web/:url", parameters: ["url": "https://x.y/z"])
    /// // "app://web/https%3A%2F%2Fx.y%2Fz"
    /// ```
    ///
    /// - Parameters:
    ///   - pattern: The pattern, with or without a scheme (MGJRouter's `beauty/:id` works).
    ///   - parameters: The values by parameter name; `"~"` for the wildcard.
    /// - Returns: The URL.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedPattern``, also for a `~` before the last
    ///   component (it has no name to take a value by), whatever the values,
    ///   ``RouterError/Code/missingParameter`` (listing every missing name), or
    ///   ``RouterError/Code/invalidParameter`` for an empty path value (it would vanish from the path).
    public static func generateURL(
        pattern: String,
        parameters: [String: any CustomStringConvertible] = [:]
    ) throws(RouterError) -> String {
        let parsed = try RoutePattern(pattern)
        // Whatever the values: a `~` before the last component stands for any one component and names no value.
        if let position = parsed.segments.firstIndex(of: .anyComponent) {
            throw RouterError(
                .malformedPattern,
                "pattern '\(pattern)': expected components a URL can be built from, found '~' at component "
                    + "\(position + 1), which stands for any one component and has no value; write it ':name'"
            )
        }
        let values = parameters.mapValues { $0.description }
        let missing =
            parsed.parameterNames.filter { values[$0] == nil }
            + (parsed.hasWildcard && values["~"] == nil ? ["~"] : [])
        guard missing.isEmpty else {
            let given = values.keys.sorted().joined(separator: ", ")
            throw RouterError(
                .missingParameter,
                "pattern '\(pattern)': expected values for \(missing.map { "'\($0)'" }.joined(separator: ", ")), "
                    + "found none (given: \(given.isEmpty ? "nothing" : given))"
            )
        }
        var components: [String] = []
        for (position, segment) in parsed.segments.enumerated() {
            switch segment {
            case .literal:
                components.append(RoutePattern(scheme: nil, segments: [segment]).description)
            case .parameter(let name):
                let value = values[name]!
                guard !value.isEmpty else {
                    throw RouterError(
                        .invalidParameter,
                        "pattern '\(pattern)': expected a non-empty value for path parameter '\(name)', found \"\""
                    )
                }
                components.append(RouteComponentCoding.encode(value + (parsed.suffix(at: position) ?? "")))
            case .anyComponent:
                break  // refused above
            case .wildcard:
                // Split on the byte '/', not on Characters: a '/' followed by a combining mark is one Character.
                components += values["~"]!.utf8.split(separator: UInt8(ascii: "/")).map {
                    RouteComponentCoding.encode(String(Substring($0)))
                }
            }
        }
        let used = Set(parsed.parameterNames + ["~"])
        let query = values.keys.filter { !used.contains($0) }.sorted().map { name in
            RouteComponentCoding.encode(name) + "=" + RouteComponentCoding.encode(values[name]!)
        }
        var url = (parsed.scheme.map { "\($0)://" } ?? "") + components.joined(separator: "/")
        if !query.isEmpty {
            url += "?" + query.joined(separator: "&")
        }
        return url
    }
}
