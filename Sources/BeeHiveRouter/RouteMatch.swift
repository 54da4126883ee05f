import BeeHive

/// The registered route a URL resolves to, without running its handler.
///
/// ```swift
/// let match = try router.match("app://user/42?tab=posts")
/// match.pattern                 // "app://user/:id"
/// match.parameters["id"]        // "42"
/// match.parameters["tab"]       // "posts"
/// ```
public struct RouteMatch: Sendable {
    /// The URL that was matched, after redirects.
    public let url: String

    /// The matched route's pattern, normalised (for example `app://user/:id`).
    public let pattern: String

    /// The query items merged with the path captures (captures win on a name clash).
    public let parameters: RouteParameters

    /// The components the pattern's trailing `~` matched, decoded; empty without a wildcard.
    public let wildcardComponents: [String]

    /// The steps the match took (probes, components compared, 64-bit word passes, routes ranked).
    let cost: Int

    /// The steps the match took, for benchmarks and tests; not API.
    ///
    /// At most `(n + 1) · (1 + 4w) + 64w` for a URL of `n` components (counted up to one more than the longest
    /// pattern of its scheme) and `w = ⌈R/64⌉` with `R` routes under the URL's scheme; when a component narrows the
    /// routes to a few (the usual case) it is set by `n` alone.
    public var __matchCost: Int { cost }
}
