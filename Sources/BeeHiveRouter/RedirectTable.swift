import BeeHive

/// A set of redirect rules, typically pushed from a server as JSON, applied to a URL before dispatch.
///
/// Rules are matched with the same index and precedence as routes (literal, then `:param`, then `~`; see
/// ``Router``). Redirects are followed until no rule matches, and every chain is bounded:
/// - a URL reached twice is a loop (``RouterError/Code/redirectLoop``);
/// - a chain longer than ``maximumHops`` is refused (``RouterError/Code/redirectLimitExceeded``), and
///   ``maximumHops`` itself is at most ``maximumHopsLimit`` (64);
/// - a redirect that would produce a URL longer than ``maximumURLLength`` (16 KiB) is refused
///   (``RouterError/Code/redirectURLTooLong``, naming the rule and the hop), so a rule that grows the URL each hop
///   stops early.
///
/// So resolving a URL costs at most 64 hops over URLs of at most 16 KiB, whatever the rules.
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
/// let table = try RedirectTable(contentsOfFile: downloadedPath)
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

    /// The largest ``maximumHops`` a table accepts, in code or in JSON.
    public static let maximumHopsLimit = 64

    /// The longest URL, in UTF-8 bytes, that a redirect may produce (the URL being redirected may be longer).
    public static let maximumURLLength = 16_384

    /// The rules in the order they were given (or loaded).
    public let rules: [RedirectRule]

    /// Entries skipped while loading a file, each with code ``RouterError/Code/malformedRedirectEntry`` and a
    /// message naming the file, the entry index and what was expected; empty for tables built in code.
    public let issues: [RouterError]

    /// The longest chain of redirects followed for one URL, from 1 to ``maximumHopsLimit``.
    public let maximumHops: Int

    private let index: RouteIndex<RedirectRule>

    /// A table without rules.
    public static let empty = RedirectTable(validRules: [], issues: [], maximumHops: defaultMaximumHops)

    /// Makes a table from rules.
    ///
    /// - Parameters:
    ///   - rules: The rules; no two may have sources that match the same URLs.
    ///   - maximumHops: The longest chain of redirects followed for one URL, from 1 to ``maximumHopsLimit``.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/invalidRedirectLimit`` when `maximumHops` is out of
    ///   range, or ``RouterError/Code/duplicateRoute`` when two sources collide.
    public init(_ rules: [RedirectRule], maximumHops: Int = RedirectTable.defaultMaximumHops) throws(RouterError) {
        guard (1...Self.maximumHopsLimit).contains(maximumHops) else {
            throw RouterError(
                .invalidRedirectLimit,
                "redirect table: expected maximumHops from 1 to \(Self.maximumHopsLimit), found \(maximumHops)"
            )
        }
        var index = RouteIndex<RedirectRule>()
        for rule in rules {
            try index.insert(rule.from, payload: rule)
        }
        self.rules = rules
        self.issues = []
        self.maximumHops = maximumHops
        self.index = index
    }

    /// Builds a table from rules that may collide, recording each rejected rule as an issue.
    ///
    /// - Parameter maximumHops: Already checked to be from 1 to ``maximumHopsLimit``.
    init(validRules: [(index: Int, rule: RedirectRule)], issues: [RouterError], maximumHops: Int, source: String = "") {
        var index = RouteIndex<RedirectRule>()
        var kept: [RedirectRule] = []
        var issues = issues
        for (position, rule) in validRules {
            do {
                try index.insert(rule.from, payload: rule)
                kept.append(rule)
            } catch {
                issues.append(
                    RouterError(.malformedRedirectEntry, "\(source), redirects[\(position)]: \(error.message)"))
            }
        }
        self.rules = kept
        self.issues = issues
        self.maximumHops = maximumHops
        self.index = index
    }

    /// Follows the redirects that apply to a URL.
    ///
    /// - Parameter url: The URL to rewrite.
    /// - Returns: The final URL and the chain of URLs visited.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedURL`` when the URL (or a rewritten one)
    ///   cannot be parsed, ``RouterError/Code/redirectLoop`` when a URL comes back,
    ///   ``RouterError/Code/redirectLimitExceeded`` when the chain is longer than ``maximumHops``, or
    ///   ``RouterError/Code/redirectURLTooLong`` when a rule would produce a URL longer than ``maximumURLLength``.
    public func resolve(_ url: String) throws(RouterError) -> Resolution {
        guard index.count > 0 else { return Resolution(url: url, chain: [url]) }
        var chain = [url]
        var current = try ParsedRouteURL(url)
        var seen: Set<String> = [current.canonical]
        while let scheme = current.scheme, let match = index.match(scheme: scheme, segments: current.segments) {
            let rule = match.route.payload
            let hop = chain.count
            let next: String
            switch rule.rewrite(
                current, captures: match.captures, wildcard: match.wildcardComponents,
                maximumLength: Self.maximumURLLength)
            {
            case .url(let text):
                next = text
            case .tooLong(let bytes):
                throw RouterError(
                    .redirectURLTooLong,
                    "redirecting '\(Self.abbreviated(url))': expected each redirect to produce at most "
                        + "\(Self.maximumURLLength) bytes, found \(bytes) bytes at hop \(hop) by rule "
                        + "'\(Self.abbreviated(rule.description))' (chain \(Self.describe(chain)))"
                )
            }
            chain.append(next)
            current = try ParsedRouteURL(next)
            guard seen.insert(current.canonical).inserted else {
                throw RouterError(
                    .redirectLoop,
                    "redirecting '\(Self.abbreviated(url))': expected the redirects to end at a URL no rule matches, "
                        + "found a loop \(Self.describe(chain)) (last rule '\(Self.abbreviated(rule.description))')"
                )
            }
            guard hop <= maximumHops else {
                throw RouterError(
                    .redirectLimitExceeded,
                    "redirecting '\(Self.abbreviated(url))': expected at most \(maximumHops) redirects, found a longer "
                        + "chain \(Self.describe(chain))"
                )
            }
        }
        return Resolution(url: chain.last!, chain: chain)
    }

    /// A chain for a message: every URL quoted, and only the first and last three of a long chain.
    private static func describe(_ chain: [String]) -> String {
        let shown =
            chain.count <= 8
            ? chain.map { "'\(abbreviated($0))'" }
            : chain.prefix(3).map { "'\(abbreviated($0))'" } + ["… (\(chain.count - 6) more)"]
                + chain.suffix(3).map { "'\(abbreviated($0))'" }
        return shown.joined(separator: " → ")
    }

    /// A URL or rule for a message: text longer than 160 bytes is cut to 100 characters and its length.
    private static func abbreviated(_ text: String) -> String {
        let bytes = text.utf8.count
        return bytes <= 160 ? text : "\(text.prefix(100))… (\(bytes) bytes)"
    }
}
