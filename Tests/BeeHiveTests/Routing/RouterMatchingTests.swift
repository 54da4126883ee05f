import Testing

@testable import BeeHive

@Suite("Router: matching URLs against patterns")
struct RouterMatchingTests {
    @Test("matches the expected route with the expected parameters", arguments: RouterMatchingTests.matchCases)
    func matches(_ row: MatchCase) throws {
        let router = Router(scheme: "app")
        for route in row.routes {
            try router.register(pattern: route) { request in request.pattern }
        }
        if let pattern = row.pattern {
            let match = try router.match(row.url)
            #expect(match.pattern == pattern)
            #expect(match.parameters.values == row.parameters)
            #expect(try router.open(row.url) as? String == pattern)
            #expect(router.canOpen(row.url))
        } else {
            let error = #expect(throws: RouterError.self) { try router.match(row.url) }
            #expect(error?.code == .routeNotFound)
            #expect(!router.canOpen(row.url))
        }
    }

    @Test("a route not found names the URL and the path it tried")
    func notFoundMessage() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://user/:id") { _ in nil }
        let error = #expect(throws: RouterError.self) { try router.open("app://user/1/2") }
        #expect(error?.code == .routeNotFound)
        #expect(error?.message.contains("'app://user/1/2'") == true)
        #expect(error?.message.contains("[user, 1, 2]") == true)
    }

    @Test("~ captures the rest of the path, decoded")
    func wildcardCapturesRest() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://web/~") { request in request.wildcardComponents }
        try router.register(pattern: "app://web/help") { _ in "help" }
        #expect(try router.open("app://web/a/b%20c/d") as? [String] == ["a", "b c", "d"])
        #expect(try router.open("app://web/help") as? String == "help")
        #expect(try router.open("app://web/help/more") as? [String] == ["help", "more"])
    }

    @Test("a route behind a :param and a ~ in the same node picks the longest working branch")
    func wildcardAfterParameterBranchFails() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://doc/:id/edit") { _ in "edit" }
        try router.register(pattern: "app://doc/~") { _ in "any" }
        #expect(try router.open("app://doc/7/edit") as? String == "edit")
        #expect(try router.open("app://doc/7/view") as? String == "any")
    }

    @Test(
        "matching visits a number of nodes set by the URL's length, not by the number of routes",
        arguments: [1_000, 10_000])
    func matchingDoesNotScan(routeCount: Int) throws {
        let router = Router(scheme: "app")
        for index in 0..<routeCount {
            try router.register(pattern: "app://module\(index % 100)/page\(index)/:id") { _ in index }
        }
        #expect(router.routeCount == routeCount)
        let match = try router.match("app://module42/page\(routeCount - 58)/7")
        #expect(match.pattern == "app://module42/page\(routeCount - 58)/:id")
        // scheme root, module, page, :id: four nodes whatever the number of routes.
        #expect(match.visitedNodeCount == 4)
        #expect(try router.open("app://module42/page\(routeCount - 58)/7") as? Int == routeCount - 58)
    }
}

extension RouterMatchingTests {
    /// One row of the matching table: the routes registered, the URL opened, and what must match.
    struct MatchCase: Sendable, CustomTestStringConvertible {
        var name: String
        var routes: [String]
        var url: String
        /// `nil` when nothing may match.
        var pattern: String?
        var parameters: [String: String] = [:]

        var testDescription: String { name }
    }

    static let matchCases: [MatchCase] = [
        MatchCase(
            name: "literal path", routes: ["app://user/profile"], url: "app://user/profile",
            pattern: "app://user/profile"),
        MatchCase(
            name: ":param captures one component", routes: ["app://user/:id"], url: "app://user/42",
            pattern: "app://user/:id", parameters: ["id": "42"]),
        MatchCase(
            name: "literal beats :param", routes: ["app://user/:id", "app://user/me"], url: "app://user/me",
            pattern: "app://user/me"),
        MatchCase(
            name: ":param beats ~", routes: ["app://user/~", "app://user/:id"], url: "app://user/7",
            pattern: "app://user/:id", parameters: ["id": "7"]),
        MatchCase(
            name: "a dead-end literal branch backtracks to :param", routes: ["app://a/b/c", "app://a/:x/d"],
            url: "app://a/b/d", pattern: "app://a/:x/d", parameters: ["x": "b"]),
        MatchCase(
            name: "MGJRouter bug: :query and :keyword share a node (first route)",
            routes: ["app://search/:query/results", "app://search/:keyword/suggest"],
            url: "app://search/swift/results", pattern: "app://search/:query/results",
            parameters: ["query": "swift"]),
        MatchCase(
            name: "MGJRouter bug: :query and :keyword share a node (second route)",
            routes: ["app://search/:query/results", "app://search/:keyword/suggest"],
            url: "app://search/swift/suggest", pattern: "app://search/:keyword/suggest",
            parameters: ["keyword": "swift"]),
        MatchCase(
            name: "a shared :param node also serves a shorter route",
            routes: ["app://search/:query", "app://search/:keyword/suggest"],
            url: "app://search/swift", pattern: "app://search/:query", parameters: ["query": "swift"]),
        MatchCase(
            name: "MGJRouter bug: a query value containing ://", routes: ["app://web"],
            url: "app://web?url=https://x.y/z", pattern: "app://web", parameters: ["url": "https://x.y/z"]),
        MatchCase(
            name: "an encoded URL with its own query as a value", routes: ["app://web"],
            url: "app://web?url=https%3A%2F%2Fx.y%2Fz%3Fa%3D1%26b%3D2", pattern: "app://web",
            parameters: ["url": "https://x.y/z?a=1&b=2"]),
        MatchCase(
            name: "MGJRouter bug: non-ASCII path registered and opened raw", routes: ["app://用户/资料"],
            url: "app://用户/资料", pattern: "app://用户/资料"),
        MatchCase(
            name: "non-ASCII path opened percent-encoded", routes: ["app://用户/资料"],
            url: "app://%E7%94%A8%E6%88%B7/%E8%B5%84%E6%96%99", pattern: "app://用户/资料"),
        MatchCase(
            name: "non-ASCII path registered percent-encoded, opened raw",
            routes: ["app://%E7%94%A8%E6%88%B7/:name"], url: "app://用户/张三", pattern: "app://用户/:name",
            parameters: ["name": "张三"]),
        MatchCase(
            name: "percent-encoded / stays inside its component", routes: ["app://file/:path"],
            url: "app://file/a%2Fb", pattern: "app://file/:path", parameters: ["path": "a/b"]),
        MatchCase(
            name: "trailing and doubled slashes are ignored", routes: ["app://user/:id"], url: "app://user//42/",
            pattern: "app://user/:id", parameters: ["id": "42"]),
        MatchCase(
            name: "the scheme is case-insensitive", routes: ["app://user/:id"], url: "APP://user/42",
            pattern: "app://user/:id", parameters: ["id": "42"]),
        MatchCase(
            name: "a path capture wins over a query item of the same name", routes: ["app://user/:id"],
            url: "app://user/5?id=7&tab=posts", pattern: "app://user/:id", parameters: ["id": "5", "tab": "posts"]),
        MatchCase(
            name: "a repeated query item keeps the last value", routes: ["app://list"], url: "app://list?p=1&p=2",
            pattern: "app://list", parameters: ["p": "2"]),
        MatchCase(
            name: "a host can be a :param", routes: ["app://:module/home"], url: "app://shop/home",
            pattern: "app://:module/home", parameters: ["module": "shop"]),
        MatchCase(name: "~ matches zero components", routes: ["app://web/~"], url: "app://web", pattern: "app://web/~"),
        MatchCase(
            name: "an extra component does not match", routes: ["app://user/:id"], url: "app://user/42/extra",
            pattern: nil),
        MatchCase(
            name: "a missing component does not match", routes: ["app://user/:id"], url: "app://user",
            pattern: nil),
        MatchCase(name: "literals are case-sensitive", routes: ["app://user/me"], url: "app://USER/me", pattern: nil),
    ]
}
