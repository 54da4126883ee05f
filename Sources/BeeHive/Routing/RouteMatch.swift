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

    /// How many tree nodes the match visited: bounded by the URL's length, not by the number of routes.
    let visitedNodeCount: Int

    /// The number of route-tree nodes the match visited, for benchmarks; not API.
    ///
    /// It grows with the URL's length (one node per component, plus backtracking) and never with the number of
    /// registered routes.
    public var __visitedNodeCount: Int { visitedNodeCount }
}
