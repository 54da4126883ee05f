/// A tree of route patterns keyed by scheme, then by one path component per level.
///
/// Matching walks one level per URL component and looks children up in a dictionary, so its cost depends on
/// the URL's length and not on how many routes are registered (``Match/visitedNodeCount`` makes this
/// observable in tests and benchmarks).
///
/// Precedence at every level: a literal child, then the parameter child, then a `~` wildcard ending here. The
/// walk backtracks: if the literal branch dead-ends deeper down, the parameter branch is tried, then the
/// wildcard. So with `app://a/b/c` and `app://a/:x/d`, the URL `app://a/b/d` matches the second route.
///
/// All `:name` components at one position share one parameter child; the names live in the terminal's
/// pattern and are bound to the captured values only after a match. That is what lets
/// `app://search/:query/results` and `app://search/:keyword/suggest` coexist (MGJRouter's bug was a single
/// dictionary key per parameter name at a node), while `app://search/:query` and `app://search/:keyword`
/// are the same route and the second insert fails with ``RouterError/Code/duplicateRoute``.
struct RouteTrie<Payload: Sendable>: Sendable {
    /// What a route stores at the end of its path.
    struct Terminal: Sendable {
        var pattern: RoutePattern
        var payload: Payload
        /// The pattern's spelling and parameter names, computed once at registration, not per match.
        var text: String
        var parameterNames: [String]

        init(pattern: RoutePattern, payload: Payload) {
            self.pattern = pattern
            self.payload = payload
            self.text = pattern.description
            self.parameterNames = pattern.parameterNames
        }
    }

    /// A successful match.
    struct Match: Sendable {
        var terminal: Terminal
        /// The parameter values keyed by the terminal pattern's parameter names.
        var captures: [String: String]
        /// The components matched by `~`, empty when the pattern has no wildcard.
        var wildcardComponents: [String]
        /// How many nodes the walk entered; bounded by the URL's length, not by the number of routes.
        var visitedNodeCount: Int
    }

    private enum Key: Hashable, Sendable {
        case literal(String)
        case parameter
    }

    private struct Node: Sendable {
        var children: [Key: Node] = [:]
        var terminal: Terminal?
        var wildcard: Terminal?

        var isEmpty: Bool { children.isEmpty && terminal == nil && wildcard == nil }
    }

    private var roots: [String: Node] = [:]

    /// The number of routes stored.
    private(set) var count = 0

    /// Whether any route is stored for the scheme.
    func contains(scheme: String) -> Bool {
        roots[scheme] != nil
    }

    /// All stored patterns, sorted by their description.
    var patterns: [RoutePattern] {
        var result: [RoutePattern] = []
        func collect(_ node: Node) {
            if let terminal = node.terminal { result.append(terminal.pattern) }
            if let wildcard = node.wildcard { result.append(wildcard.pattern) }
            for child in node.children.values { collect(child) }
        }
        roots.values.forEach(collect)
        return result.sorted { $0.description < $1.description }
    }

    // MARK: - Insertion and removal

    /// Stores a route.
    ///
    /// - Throws: ``RouterError/Code/duplicateRoute`` when a pattern of the same shape is stored; nothing changes.
    mutating func insert(_ pattern: RoutePattern, payload: Payload) throws(RouterError) {
        guard let scheme = pattern.scheme else {
            throw RouterError(.malformedPattern, "pattern '\(pattern)': expected 'scheme://…', found no scheme")
        }
        let terminal = Terminal(pattern: pattern, payload: payload)
        try Self.insert(terminal, remaining: pattern.segments[...], into: &roots[scheme, default: Node()])
        count += 1
    }

    private static func insert(
        _ terminal: Terminal,
        remaining: ArraySlice<RoutePattern.Segment>,
        into node: inout Node
    ) throws(RouterError) {
        guard let first = remaining.first else {
            if let existing = node.terminal { throw duplicate(terminal.pattern, existing.pattern) }
            node.terminal = terminal
            return
        }
        switch first {
        case .wildcard:
            if let existing = node.wildcard { throw duplicate(terminal.pattern, existing.pattern) }
            node.wildcard = terminal
        case .literal(let text):
            try insert(
                terminal, remaining: remaining.dropFirst(), into: &node.children[.literal(text), default: Node()])
        case .parameter:
            try insert(terminal, remaining: remaining.dropFirst(), into: &node.children[.parameter, default: Node()])
        }
    }

    private static func duplicate(_ new: RoutePattern, _ existing: RoutePattern) -> RouterError {
        let detail =
            new == existing
            ? "it is already registered"
            : "it matches exactly the same URLs as the registered '\(existing)' (only parameter names differ)"
        return RouterError(
            .duplicateRoute,
            "pattern '\(new)': expected a route no other pattern covers, found that \(detail); deregister it first"
        )
    }

    /// Removes the route with exactly this pattern (parameter names included) and prunes empty nodes.
    ///
    /// - Returns: The removed terminal, or `nil` when no route has this pattern.
    mutating func remove(_ pattern: RoutePattern) -> Terminal? {
        guard let scheme = pattern.scheme, var root = roots[scheme] else { return nil }
        let removed = Self.remove(pattern, remaining: pattern.segments[...], from: &root)
        roots[scheme] = root.isEmpty ? nil : root
        if removed != nil { count -= 1 }
        return removed
    }

    private static func remove(
        _ pattern: RoutePattern,
        remaining: ArraySlice<RoutePattern.Segment>,
        from node: inout Node
    ) -> Terminal? {
        guard let first = remaining.first else {
            guard node.terminal?.pattern == pattern else { return nil }
            defer { node.terminal = nil }
            return node.terminal
        }
        let key: Key
        switch first {
        case .wildcard:
            guard node.wildcard?.pattern == pattern else { return nil }
            defer { node.wildcard = nil }
            return node.wildcard
        case .literal(let text):
            key = .literal(text)
        case .parameter:
            key = .parameter
        }
        guard var child = node.children[key] else { return nil }
        let removed = remove(pattern, remaining: remaining.dropFirst(), from: &child)
        node.children[key] = child.isEmpty ? nil : child
        return removed
    }

    // MARK: - Matching

    /// Finds the route for a URL's components, honouring the precedence described on the type.
    func match(scheme: String, segments: [String]) -> Match? {
        guard let root = roots[scheme] else { return nil }
        var captured: [String] = []
        var visited = 0
        guard let (terminal, rest) = Self.match(root, segments[...], &captured, &visited) else { return nil }
        var captures: [String: String] = [:]
        for (name, value) in zip(terminal.parameterNames, captured) {
            captures[name] = value
        }
        return Match(terminal: terminal, captures: captures, wildcardComponents: Array(rest), visitedNodeCount: visited)
    }

    private static func match(
        _ node: Node,
        _ remaining: ArraySlice<String>,
        _ captured: inout [String],
        _ visited: inout Int
    ) -> (Terminal, ArraySlice<String>)? {
        visited += 1
        guard let component = remaining.first else {
            if let terminal = node.terminal { return (terminal, remaining) }
            if let wildcard = node.wildcard { return (wildcard, remaining) }
            return nil
        }
        if let child = node.children[.literal(component)],
            let found = match(child, remaining.dropFirst(), &captured, &visited)
        {
            return found
        }
        if let child = node.children[.parameter] {
            captured.append(component)
            if let found = match(child, remaining.dropFirst(), &captured, &visited) { return found }
            captured.removeLast()
        }
        if let wildcard = node.wildcard { return (wildcard, remaining) }
        return nil
    }

    /// Whether some stored route begins with these components, or a wildcard route covers them.
    ///
    /// Empty nodes are pruned on removal, so reaching a node means some route continues from it.
    func hasRoute(withPrefix segments: [String], scheme: String) -> Bool {
        guard let root = roots[scheme] else { return false }
        return Self.hasPrefix(root, segments[...])
    }

    private static func hasPrefix(_ node: Node, _ remaining: ArraySlice<String>) -> Bool {
        guard let component = remaining.first else { return true }
        if let child = node.children[.literal(component)], hasPrefix(child, remaining.dropFirst()) { return true }
        if let child = node.children[.parameter], hasPrefix(child, remaining.dropFirst()) { return true }
        return node.wildcard != nil
    }
}
