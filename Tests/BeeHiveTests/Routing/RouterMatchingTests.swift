import Testing

@testable import BeeHive
@testable import BeeHiveRouter

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

    @Test("a ~ before the last component matches exactly one component, whatever it is, and captures nothing")
    func middleWildcardMatchesOneComponent() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://~/detail/:id") { request in request.parameters.values }
        #expect(try router.open("app://shop/detail/7") as? [String: String] == ["id": "7"])
        #expect(try router.open("app://%E5%BA%97/detail/8") as? [String: String] == ["id": "8"])
        for url in ["app://detail/7", "app://shop/more/detail/7", "app://shop/detail"] {
            let error = #expect(throws: RouterError.self, "\(url)") { try router.open(url) }
            #expect(error?.code == .routeNotFound, "\(url)")
        }
        #expect(try router.match("app://shop/detail/7").wildcardComponents.isEmpty, "only a last ~ gives the rest")
    }

    @Test("a ~ in the middle ranks as a :param: a literal at its position wins, and a later literal decides")
    func middleWildcardPrecedence() throws {
        let router = Router(scheme: "app")
        for pattern in ["app://shop/detail/:id", "app://~/detail/:id", "app://~/detail/:id/edit", "app://a/~/~"] {
            try router.register(pattern: pattern) { request in request.pattern }
        }
        #expect(try router.open("app://shop/detail/1") as? String == "app://shop/detail/:id")
        #expect(try router.open("app://mall/detail/1") as? String == "app://~/detail/:id")
        #expect(try router.open("app://shop/detail/1/edit") as? String == "app://~/detail/:id/edit")
        // A middle ~ takes one component; the last ~ takes the rest, as before.
        let rest = try router.match("app://a/b/c/d")
        #expect(rest.pattern == "app://a/~/~")
        #expect(rest.wildcardComponents == ["c", "d"])
    }

    @Test("a ~ in the middle and a :param at the same place are the same route; the second is a duplicate")
    func middleWildcardDuplicatesParameter() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://a/:x/b") { _ in nil }
        let error = #expect(throws: RouterError.self) { try router.register(pattern: "app://a/~/b") { _ in nil } }
        #expect(error?.code == .duplicateRoute)
        #expect(error?.message.contains("a '~' in the middle matches one component as a ':name' does") == true)
    }

    @Test("a ~ in the middle costs what a :param costs: the work stays within the bound, with no backtracking")
    func middleWildcardCostIsBounded() throws {
        let router = Router(scheme: "app")
        let depth = 256
        // Each step has d middle `~`s where the others have literals: a backtracking walk would branch at each.
        for step in 0...depth {
            let components = Array(repeating: "~", count: step) + Array(repeating: "x", count: depth - step) + ["z"]
            try router.register(pattern: "app://a/" + components.joined(separator: "/")) { _ in nil }
        }
        let xs = Array(repeating: "x", count: depth)
        let bound = RouteIndex<Int>.costBound(components: depth + 2, routes: depth + 1)
        let literal = try router.match("app://a/" + (xs + ["z"]).joined(separator: "/"))
        #expect(literal.pattern == "app://a/" + (xs + ["z"]).joined(separator: "/"))
        #expect(literal.cost <= bound, "cost \(literal.cost)")
        let ws = Array(repeating: "w", count: depth)
        let allWild = try router.match("app://a/" + (ws + ["z"]).joined(separator: "/"))
        #expect(allWild.pattern == "app://a/" + (Array(repeating: "~", count: depth) + ["z"]).joined(separator: "/"))
        #expect(allWild.cost <= bound, "cost \(allWild.cost)")
        let dead = #expect(throws: RouterError.self) {
            try router.match("app://a/" + (xs + ["y"]).joined(separator: "/"))
        }
        #expect(dead?.code == .routeNotFound)
    }

    @Test("a URL cannot be built from a pattern with a ~ in the middle: it has no name to take a value by")
    func middleWildcardGeneration() {
        let error = #expect(throws: RouterError.self) {
            try Router.generateURL(pattern: "app://~/detail/:id", parameters: ["id": 7])
        }
        #expect(error?.code == .malformedPattern)
        #expect(error?.message.contains("pattern 'app://~/detail/:id': expected components a URL can be built") == true)
        #expect(error?.message.contains("found '~' at component 1") == true)
        #expect(error?.message.contains("write it ':name'") == true)
        // Whatever the values: the pattern is what is wrong, not a missing or empty one.
        for parameters: [String: String] in [[:], ["id": ""], ["~": "a/b"]] {
            let error = #expect(throws: RouterError.self, "\(parameters)") {
                try Router.generateURL(pattern: "app://x/~/:id/~", parameters: parameters)
            }
            #expect(error?.code == .malformedPattern, "\(parameters)")
            #expect(error?.message.contains("found '~' at component 2") == true, "\(parameters)")
        }
    }

    @Test("a route behind a :param and a ~ at the same position picks the longest working branch")
    func wildcardAfterParameterBranchFails() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://doc/:id/edit") { _ in "edit" }
        try router.register(pattern: "app://doc/~") { _ in "any" }
        #expect(try router.open("app://doc/7/edit") as? String == "edit")
        #expect(try router.open("app://doc/7/view") as? String == "any")
    }

    @Test("when a component narrows the routes to a few, the work is set by the URL's length, not the number of routes")
    func matchingDoesNotScan() throws {
        var costs: [Int] = []
        for routeCount in [1_000, 10_000] {
            let router = Router(scheme: "app")
            for index in 0..<routeCount {
                try router.register(pattern: "app://module\(index % 100)/page\(index)/:id") { _ in index }
            }
            #expect(router.routeCount == routeCount)
            let match = try router.match("app://module42/page\(routeCount - 58)/7")
            #expect(match.pattern == "app://module42/page\(routeCount - 58)/:id")
            #expect(try router.open("app://module42/page\(routeCount - 58)/7") as? Int == routeCount - 58)
            costs.append(match.cost)
        }
        // Two probes (`module42` allows 10 or 100 routes, `page<n>` one), then that route: checked, compared over
        // three components, and ranked.
        #expect(costs == [7, 7])
    }

    @Test("picks the same route and captures as a backtracking walk, for random route sets")
    func agreesWithBacktracking() throws {
        var random = SplitMix64(seed: 0x5EED)
        let literals = ["a", "b"]
        func segment() -> String { random.next() % 3 == 0 ? ":p" : literals[Int(random.next() % 2)] }
        var compared = 0
        for _ in 0..<300 {
            let router = Router(scheme: "app")
            var registered: [[String]] = []
            for _ in 0..<Int(random.next() % 12) {
                var segments = (0..<Int(random.next() % 5)).map { _ in segment() }
                if random.next() % 4 == 0 { segments.append("~") }
                // The bare pattern `app://` is MGJRouter's scheme-wide fallback, the same route as `app://~`.
                let named = segments.isEmpty ? ["~"] : segments.enumerated().map { $1 == ":p" ? ":p\($0)" : $1 }
                do {
                    try router.register(pattern: "app://" + named.joined(separator: "/")) { _ in nil }
                    registered.append(named)
                } catch {
                    #expect(error.code == .duplicateRoute)
                }
            }
            for _ in 0..<20 {
                let url = (0..<Int(random.next() % 6)).map { _ in ["a", "b", "c"][Int(random.next() % 3)] }
                let text = "app://" + url.joined(separator: "/")
                let expected = Self.backtrackingMatch(registered, url)
                let found = try? router.match(text)
                #expect(found?.pattern == expected.map { "app://" + $0.pattern.joined(separator: "/") }, "\(text)")
                #expect(found?.parameters.values ?? [:] == expected?.captures ?? [:], "\(text)")
                #expect(router.canOpen(text, matching: .prefix) == Self.backtrackingPrefix(registered, url), "\(text)")
                compared += 1
            }
        }
        #expect(compared == 6_000)
    }

    @Test("with hundreds of routes, some removed and registered again, it still picks what a backtracking walk picks")
    func agreesWithBacktrackingUnderChurn() throws {
        var random = SplitMix64(seed: 0xC0FFEE)
        let literals = ["a", "b"]
        func segment() -> String { random.next() % 3 == 0 ? ":p" : literals[Int(random.next() % 2)] }
        var compared = 0
        var largest = 0
        for _ in 0..<6 {
            let router = Router(scheme: "app")
            var registered: [[String]] = []
            for step in 1...600 {
                if !registered.isEmpty, random.next() % 4 == 0 {
                    let removed = registered.remove(at: Int(random.next() % UInt64(registered.count)))
                    #expect(router.deregister(pattern: "app://" + removed.joined(separator: "/")))
                } else {
                    var segments = (0..<Int(random.next() % 7)).map { _ in segment() }
                    if random.next() % 4 == 0 { segments.append("~") }
                    // The bare pattern `app://` is MGJRouter's scheme-wide fallback, the same route as `app://~`.
                    let named = segments.isEmpty ? ["~"] : segments.enumerated().map { $1 == ":p" ? ":p\($0)" : $1 }
                    do {
                        try router.register(pattern: "app://" + named.joined(separator: "/")) { _ in nil }
                        registered.append(named)
                    } catch {
                        #expect(error.code == .duplicateRoute)
                    }
                }
                #expect(router.routeCount == registered.count)
                largest = max(largest, registered.count)
                guard step % 50 == 0 else { continue }
                let longest = registered.map(\.count).max() ?? 0
                for _ in 0..<25 {
                    let url = (0..<Int(random.next() % 9)).map { _ in ["a", "b", "c"][Int(random.next() % 3)] }
                    let text = "app://" + url.joined(separator: "/")
                    let expected = Self.backtrackingMatch(registered, url)
                    let found = try? router.match(text)
                    #expect(found?.pattern == expected.map { "app://" + $0.pattern.joined(separator: "/") }, "\(text)")
                    #expect(found?.parameters.values ?? [:] == expected?.captures ?? [:], "\(text)")
                    let bound = RouteIndex<Int>.costBound(
                        components: min(url.count, longest + 1), routes: registered.count)
                    #expect((found?.cost ?? 0) <= bound, "\(text): cost \(found?.cost ?? 0), bound \(bound)")
                    let prefix = Self.backtrackingPrefix(registered, url)
                    #expect(router.canOpen(text, matching: .prefix) == prefix, "\(text)")
                    compared += 1
                }
            }
        }
        #expect(compared == 1_800)
        // More than 64 routes at once: the allowed sets are bit sets of several words.
        #expect(largest > 128, "largest route set \(largest)")
    }
}

extension RouterMatchingTests {
    /// The matching rule written as the plain backtracking walk it specifies: at each component try the literal,
    /// then a `:param`, then a `~` ending here; at the end of the URL a pattern ending here, then a `~`.
    static func backtrackingMatch(_ patterns: [[String]], _ url: [String]) -> WalkResult? {
        func walk(_ depth: Int, _ live: [[String]]) -> [String]? {
            let here = live.filter { $0.count > depth }
            if depth == url.count, let ending = live.first(where: { $0.count == depth }) { return ending }
            if depth < url.count {
                for next in [here.filter { $0[depth] == url[depth] }, here.filter { $0[depth].hasPrefix(":") }]
                where !next.isEmpty {
                    if let found = walk(depth + 1, next) { return found }
                }
            }
            return here.first { $0[depth] == "~" }
        }
        guard let pattern = walk(0, patterns) else { return nil }
        var captures: [String: String] = [:]
        for (index, segment) in pattern.enumerated() where segment.hasPrefix(":") {
            captures[String(segment.dropFirst())] = url[index]
        }
        return WalkResult(pattern: pattern, captures: captures)
    }

    /// The route a backtracking walk picks, as its components, and the parameters it captures.
    struct WalkResult {
        var pattern: [String]
        var captures: [String: String]
    }

    /// Whether some pattern begins with the URL's components, or a `~` covers them, by the same walk.
    static func backtrackingPrefix(_ patterns: [[String]], _ url: [String]) -> Bool {
        func walk(_ depth: Int, _ live: [[String]]) -> Bool {
            guard depth < url.count else { return !live.isEmpty }
            let here = live.filter { $0.count > depth }
            let literal = here.filter { $0[depth] == url[depth] }
            let parameter = here.filter { $0[depth].hasPrefix(":") }
            return (!literal.isEmpty && walk(depth + 1, literal)) || (!parameter.isEmpty && walk(depth + 1, parameter))
                || here.contains { $0[depth] == "~" }
        }
        return !patterns.isEmpty && walk(0, patterns)
    }

    /// A small deterministic generator, so that a failure can be replayed.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

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
            name: "MGJRouter bug: :query and :keyword share a position (first route)",
            routes: ["app://search/:query/results", "app://search/:keyword/suggest"],
            url: "app://search/swift/results", pattern: "app://search/:query/results",
            parameters: ["query": "swift"]),
        MatchCase(
            name: "MGJRouter bug: :query and :keyword share a position (second route)",
            routes: ["app://search/:query/results", "app://search/:keyword/suggest"],
            url: "app://search/swift/suggest", pattern: "app://search/:keyword/suggest",
            parameters: ["keyword": "swift"]),
        MatchCase(
            name: "a shared :param position also serves a shorter route",
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
