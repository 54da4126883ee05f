/// A set of redirect rules, typically pushed from a server as JSON, applied to a URL before dispatch.
///
/// Rules are matched with the same tree and precedence as routes (literal, then `:param`, then `~`), so
/// looking a URL up costs the same for 10 or 10,000 rules. Redirects are followed until no rule matches; a URL
/// reached twice is a loop (``RouterError/Code/redirectLoop``) and a chain longer than ``maximumHops`` is
/// refused (``RouterError/Code/redirectLimitExceeded``).
///
/// The JSON format (see ``init(json:source:)``):
///
/// ```json
/// {
///     "version": 1,
///     "maxHops": 8,
///     "redirects": [
///         { "from": "app://old/:id", "to": "app://new/:id" },
///         { "from": "app://legacy/~", "to": "https://m.example.com/~" }
///     ]
/// }
/// ```
///
/// ```swift
/// let table = try RedirectTable(contentsOf: downloadedFile)
/// for issue in table.issues { log(issue.message) }   // bad entries are skipped, good ones load
/// router.setRedirects(table)
/// ```
public struct RedirectTable: Sendable {
    /// The result of following redirects for one URL.
    public struct Resolution: Sendable, Equatable {
        /// The final URL: the input when no rule matched.
        public let url: String

        /// Every URL visited, the input first and ``url`` last; one element when no rule matched.
        public let chain: [String]

        /// Whether at least one rule applied.
        public var didRedirect: Bool { chain.count > 1 }
    }

    /// The default for ``maximumHops``.
    public static let defaultMaximumHops = 16

    /// The rules in the order they were given (or loaded).
    public let rules: [RedirectRule]

    /// Entries skipped while loading a file, each with code ``RouterError/Code/malformedRedirectEntry`` and a
    /// message naming the file, the entry index and what was expected; empty for tables built in code.
    public let issues: [RouterError]

    /// The longest chain of redirects followed for one URL.
    public let maximumHops: Int

    private let trie: RouteTrie<RedirectRule>

    /// A table without rules.
    public static let empty = RedirectTable(validRules: [], issues: [], maximumHops: defaultMaximumHops)

    /// Makes a table from rules.
    ///
    /// - Parameters:
    ///   - rules: The rules; no two may have sources that match the same URLs.
    ///   - maximumHops: The longest chain of redirects followed for one URL (at least 1).
    /// - Throws: ``RouterError`` with code ``RouterError/Code/duplicateRoute`` when two sources collide.
    public init(_ rules: [RedirectRule], maximumHops: Int = RedirectTable.defaultMaximumHops) throws(RouterError) {
        var trie = RouteTrie<RedirectRule>()
        for rule in rules {
            try trie.insert(rule.from, payload: rule)
        }
        self.rules = rules
        self.issues = []
        self.maximumHops = max(1, maximumHops)
        self.trie = trie
    }

    /// Builds a table from rules that may collide, recording each rejected rule as an issue.
    init(validRules: [(index: Int, rule: RedirectRule)], issues: [RouterError], maximumHops: Int, source: String = "") {
        var trie = RouteTrie<RedirectRule>()
        var kept: [RedirectRule] = []
        var issues = issues
        for (index, rule) in validRules {
            do {
                try trie.insert(rule.from, payload: rule)
                kept.append(rule)
            } catch {
                issues.append(RouterError(.malformedRedirectEntry, "\(source), redirects[\(index)]: \(error.message)"))
            }
        }
        self.rules = kept
        self.issues = issues
        self.maximumHops = max(1, maximumHops)
        self.trie = trie
    }

    /// Follows the redirects that apply to a URL.
    ///
    /// - Parameter url: The URL to rewrite.
    /// - Returns: The final URL and the chain of URLs visited.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedURL`` when the URL (or a rewritten one)
    ///   cannot be parsed, ``RouterError/Code/redirectLoop`` when a URL comes back, or
    ///   ``RouterError/Code/redirectLimitExceeded`` when the chain is longer than ``maximumHops``.
    public func resolve(_ url: String) throws(RouterError) -> Resolution {
        guard trie.count > 0 else { return Resolution(url: url, chain: [url]) }
        var chain = [url]
        var current = try ParsedRouteURL(url)
        var seen: Set<String> = [current.canonical]
        while let scheme = current.scheme, let match = trie.match(scheme: scheme, segments: current.segments) {
            let rule = match.terminal.payload
            let next = rule.rewrite(current, captures: match.captures, wildcard: match.wildcardComponents)
            chain.append(next)
            func path() -> String { chain.map { "'\($0)'" }.joined(separator: " → ") }
            current = try ParsedRouteURL(next)
            guard seen.insert(current.canonical).inserted else {
                throw RouterError(
                    .redirectLoop,
                    "redirecting '\(url)': expected the redirects to end at a URL no rule matches, found a loop "
                        + "\(path()) (last rule '\(rule)')"
                )
            }
            guard chain.count - 1 <= maximumHops else {
                throw RouterError(
                    .redirectLimitExceeded,
                    "redirecting '\(url)': expected at most \(maximumHops) redirects, found a longer chain \(path())"
                )
            }
        }
        return Resolution(url: chain.last!, chain: chain)
    }
}
