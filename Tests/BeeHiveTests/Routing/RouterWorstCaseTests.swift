import Testing

@testable import BeeHive
@testable import BeeHiveRouter

/// The router's worst case: patterns that overlap so that a backtracking walk explores long dead ends.
///
/// The staircase of depth d: for i in 0...d, `app://a/` then i parameters, then d - i literals `x`, then `z`;
/// plus the catch-all `app://a/:q1/…/:q(d+1)`. A URL `app://a/x/…/x/y` (d times `x`) is compatible with every
/// staircase pattern up to its last component, so a walk that tries the literal `x` before the parameter at every
/// level explores about d²/2 nodes before it reaches the catch-all.
@Suite("Router: the worst case of matching")
struct RouterWorstCaseTests {
    static func staircase(depth d: Int) -> [String] {
        let steps = (0...d).map { i in
            "app://a/"
                + ((0..<i).map { ":p\($0 + 1)" } + Array(repeating: "x", count: d - i) + ["z"])
                .joined(separator: "/")
        }
        return steps + ["app://a/" + (1...d + 1).map { ":q\($0)" }.joined(separator: "/")]
    }

    static func url(_ components: [String]) -> String {
        "app://a/" + components.joined(separator: "/")
    }

    /// The work the router promises at most (``RouteIndex/costBound(components:routes:)``).
    static func bound(components: Int, routes: Int) -> Int {
        RouteIndex<Int>.costBound(components: components, routes: routes)
    }

    @Test("a staircase picks the same route as a backtracking walk, with bounded work", arguments: [64, 256])
    func staircase(depth d: Int) throws {
        let router = Router(scheme: "app")
        for pattern in Self.staircase(depth: d) {
            try router.register(pattern: pattern) { _ in nil }
        }
        let xs = Array(repeating: "x", count: d)
        let start = ContinuousClock.now

        // Every staircase pattern matches x…x/z; the one without parameters wins (a literal beats a parameter).
        let allLiteral = try router.match(Self.url(xs + ["z"]))
        #expect(allLiteral.pattern == "app://a/" + (xs + ["z"]).joined(separator: "/"))
        #expect(allLiteral.cost <= Self.bound(components: d + 2, routes: d + 2), "cost \(allLiteral.cost)")

        // A `w` at position k (1-based) rules out the steps with fewer than k parameters: step k wins.
        for k in [1, d / 2, d] {
            var components = xs + ["z"]
            components[k - 1] = "w"
            let match = try router.match(Self.url(components))
            #expect(match.pattern.hasPrefix("app://a/" + (1...k).map { ":p\($0)" }.joined(separator: "/") + "/"))
            #expect(match.parameters["p\(k)"] == "w")
            #expect(match.parameters.values.count == k)
        }

        // No step ends in `y`: only the catch-all matches, after every literal branch has dead-ended.
        let dead = try router.match(Self.url(xs + ["y"]))
        #expect(dead.pattern.hasPrefix("app://a/:q1/:q2/"))
        #expect(dead.parameters["q\(d + 1)"] == "y")
        #expect(dead.parameters.values.count == d + 1)
        #expect(dead.cost <= Self.bound(components: d + 2, routes: d + 2), "cost \(dead.cost)")

        #expect(router.canOpen(Self.url(xs + ["y"]), matching: .prefix))
        #expect(!router.canOpen(Self.url(xs + ["y", "y"]), matching: .exact))
        #expect(ContinuousClock.now - start < .seconds(2), "hang guard")
    }

    @Test("without the catch-all, the staircase's dead end is a clear route-not-found, quickly")
    func staircaseDeadEnd() throws {
        let d = 256
        let router = Router(scheme: "app")
        for pattern in Self.staircase(depth: d).dropLast() {
            try router.register(pattern: pattern) { _ in nil }
        }
        let start = ContinuousClock.now
        let error = #expect(throws: RouterError.self) {
            try router.match(Self.url(Array(repeating: "x", count: d) + ["y"]))
        }
        #expect(error?.code == .routeNotFound)
        #expect(error?.message.contains("found none among \(d + 1) routes") == true)
        #expect(ContinuousClock.now - start < .seconds(2), "hang guard")
    }

    @Test("a URL much longer than every pattern costs no more than the patterns are long")
    func longURL() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://a/:id") { _ in nil }
        try router.register(pattern: "app://a/b/~") { _ in nil }
        let long = Self.url(["b"] + Array(repeating: "c", count: 100_000))
        let match = try router.match(long)
        #expect(match.pattern == "app://a/b/~")
        #expect(match.wildcardComponents.count == 100_000)
        #expect(match.cost <= Self.bound(components: 3, routes: 2), "cost \(match.cost)")
    }
}
