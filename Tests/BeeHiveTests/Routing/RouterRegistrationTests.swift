import Testing

@testable import BeeHive
@testable import BeeHiveRouter

@Suite("Router: registering and deregistering patterns")
struct RouterRegistrationTests {
    @Test("MGJRouter bug: :query and :keyword at the same place are one route, so the second is rejected")
    func parameterNameCollisionIsRejected() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://search/:query") { request in request.parameters["query"] }
        let error = #expect(throws: RouterError.self) {
            try router.register(pattern: "app://search/:keyword") { request in request.parameters["keyword"] }
        }
        #expect(error?.code == .duplicateRoute)
        #expect(error?.message.contains("'app://search/:query'") == true)
        #expect(error?.message.contains("only parameter names differ") == true)
        // The first registration is untouched.
        #expect(try router.open("app://search/bees") as? String == "bees")
    }

    @Test("registering the same pattern twice is rejected")
    func samePatternTwice() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://home") { _ in 1 }
        let error = #expect(throws: RouterError.self) { try router.register(pattern: "app://home") { _ in 2 } }
        #expect(error?.code == .duplicateRoute)
        #expect(error?.message.contains("already registered") == true)
        #expect(try router.open("app://home") as? Int == 1)
    }

    @Test("a duplicate's error names where both routes were registered")
    func duplicateNamesBothCallSites() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://home", fileID: "App/Routes.swift", line: 12) { _ in 1 }
        let error = #expect(throws: RouterError.self) {
            try router.register(pattern: "app://home", fileID: "Feature/More.swift", line: 40) { _ in 2 }
        }
        #expect(error?.message.contains("(Feature/More.swift:40)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("already registered at App/Routes.swift:12") == true)
        // Called without the parameters, the call site is named: this file.
        let table = RouteTable<Int>(scheme: "app")
        try table.register(pattern: "app://x") { _ in 1 }
        let again = #expect(throws: RouterError.self) { try table.register(pattern: "app://x") { _ in 2 } }
        #expect(again?.message.contains("BeeHiveTests/RouterRegistrationTests.swift:") == true)
    }

    @Test(
        "invalid patterns are rejected with a message naming the problem",
        arguments: RouterRegistrationTests.badPatterns)
    func badPattern(_ row: BadPatternCase) {
        let router = Router(scheme: "app")
        let error = #expect(throws: RouterError.self) { try router.register(pattern: row.pattern) { _ in nil } }
        #expect(error?.code == row.code)
        #expect(error?.message.contains(row.mentions) == true, "message: \(error?.message ?? "")")
        #expect(router.routeCount == 0)
    }

    @Test("a scheme router gives scheme-less patterns its scheme")
    func schemeLessPattern() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "user/:id") { request in request.parameters["id"] }
        #expect(router.registeredPatterns == ["app://user/:id"])
        #expect(try router.open("app://user/3") as? String == "3")
    }

    @Test("the global router refuses scheme-less patterns")
    func globalNeedsScheme() {
        let router = Router()
        let error = #expect(throws: RouterError.self) { try router.register(pattern: "user/:id") { _ in nil } }
        #expect(error?.code == .malformedPattern)
    }

    @Test("deregistering removes exactly the named route and prunes its branch")
    func deregister() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://user/:id") { _ in "user" }
        try router.register(pattern: "app://user/:id/posts") { _ in "posts" }
        #expect(!router.deregister(pattern: "app://user/:other/posts"))
        #expect(router.deregister(pattern: "app://user/:id/posts"))
        #expect(!router.deregister(pattern: "app://user/:id/posts"))
        #expect(router.routeCount == 1)
        #expect(!router.canOpen("app://user/1/posts"))
        #expect(!router.canOpen("app://user/1/posts", matching: .prefix))
        #expect(router.canOpen("app://user/1"))
        #expect(router.deregister(pattern: "user/:id"))
        #expect(!router.canOpen("app://user", matching: .prefix))
        // The parameter name is free again.
        try router.register(pattern: "app://user/:name") { _ in "renamed" }
        #expect(try router.open("app://user/x") as? String == "renamed")
    }

    @Test("RoutePattern normalises its spelling and lists its parameters")
    func patternDescription() throws {
        let pattern = try RoutePattern("APP://%E7%94%A8%E6%88%B7/:id/~")
        #expect(pattern.description == "app://用户/:id/~")
        #expect(pattern.parameterNames == ["id"])
        #expect(pattern.hasWildcard)
        #expect(try RoutePattern(pattern.description) == pattern)
    }

    @Test("a literal whose '/', '?', '#', '%' or leading ':' carries a combining mark parses back from its spelling")
    func combiningMarksRoundTrip() throws {
        // "/\u{301}" is one Character, but written raw it is a separator followed by an accent.
        for literal in ["a/\u{301}b", ":\u{301}x", "?\u{301}", "#\u{301}", "%\u{301}41"] {
            let pattern = try RoutePattern("app://" + RouteComponentCoding.encode(literal) + "/:id")
            #expect(pattern.segments == [.literal(literal), .parameter("id")])
            #expect(try RoutePattern(pattern.description) == pattern, "spelled '\(pattern.description)'")
        }
    }
}

extension RouterRegistrationTests {
    struct BadPatternCase: Sendable, CustomTestStringConvertible {
        var pattern: String
        var code: RouterError.Code
        var mentions: String

        var testDescription: String { pattern }
    }

    static let badPatterns: [BadPatternCase] = [
        BadPatternCase(pattern: "app://detail?id=:id", code: .malformedPattern, mentions: "without '?'"),
        BadPatternCase(pattern: "app://user/:", code: .malformedPattern, mentions: "':name'"),
        BadPatternCase(pattern: "app://user/:a b", code: .malformedPattern, mentions: "':a b'"),
        BadPatternCase(pattern: "app://user/:id/:id", code: .malformedPattern, mentions: "':id' again"),
        BadPatternCase(pattern: "app://bad/%zz", code: .malformedPattern, mentions: "'%zz'"),
        BadPatternCase(pattern: "1app://user", code: .malformedPattern, mentions: "scheme"),
        BadPatternCase(pattern: "shop://item/:id", code: .unknownScheme, mentions: "expected scheme 'app'"),
    ]
}
