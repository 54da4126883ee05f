import Testing

@testable import BeeHive
@testable import BeeHiveRouter

@Suite("Router: generating URLs from patterns")
struct RouterURLGenerationTests {
    @Test(
        "a generated URL opens on its pattern and gives every value back",
        arguments: RouterURLGenerationTests.roundTripValues)
    func roundTrip(_ row: RoundTripCase) throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://item/:value/detail") { request in request.parameters }
        let url = try Router.generateURL(
            pattern: "app://item/:value/detail",
            parameters: ["value": row.value, "note": row.value]
        )
        let parameters = try #require(try router.open(url) as? RouteParameters)
        #expect(parameters.values == ["value": row.value, "note": row.value])
    }

    @Test("fills parameters, keeps literals, and turns extra parameters into sorted query items")
    func fillsPattern() throws {
        #expect(try Router.generateURL(pattern: "app://user/:id", parameters: ["id": 42]) == "app://user/42")
        #expect(
            try Router.generateURL(pattern: "app://用户/:id", parameters: ["id": 7, "tab": "posts", "b": true])
                == "app://用户/7?b=true&tab=posts"
        )
        #expect(try Router.generateURL(pattern: "beauty/:id", parameters: ["id": 13]) == "beauty/13")
        #expect(try Router.generateURL(pattern: "app://web/~", parameters: ["~": "a/b c"]) == "app://web/a/b%20c")
    }

    @Test("a wildcard value splits at every '/' byte, even one a combining mark joins to the next letter (fuzzer)")
    func wildcardSplitsOnSlashBytes() throws {
        // "/\u{030F}" is one Character; splitting Characters kept "a/̏b" as one component, escaped as a%2F%CC%8Fb.
        let url = try Router.generateURL(pattern: "app://x/~", parameters: ["~": "a/\u{030F}b"])
        #expect(url == "app://x/a/%CC%8Fb")
        let router = Router(scheme: "app")
        try router.register(pattern: "app://x/~") { request in request.parameters }
        #expect(try router.match(url).wildcardComponents == ["a", "\u{030F}b"])
    }

    @Test("reports every missing parameter by name")
    func missingParameters() {
        let error = #expect(throws: RouterError.self) {
            try Router.generateURL(pattern: "app://user/:id/posts/:post", parameters: ["tab": "x"])
        }
        #expect(error?.code == .missingParameter)
        #expect(error?.message.contains("'id', 'post'") == true)
        #expect(error?.message.contains("given: tab") == true)
    }

    @Test("refuses an empty path value, which would vanish from the URL")
    func emptyValue() {
        let error = #expect(throws: RouterError.self) {
            try Router.generateURL(pattern: "app://user/:id", parameters: ["id": ""])
        }
        #expect(error?.code == .invalidParameter)
    }

    @Test("percent-encoding keeps unreserved characters and escapes the rest as UTF-8")
    func encoding() {
        #expect(RouteComponentCoding.encode("aZ0-._~") == "aZ0-._~")
        #expect(RouteComponentCoding.encode("用") == "%E7%94%A8")
        #expect(RouteComponentCoding.encode("a b/c") == "a%20b%2Fc")
        #expect(RouteComponentCoding.decode("%E7%94%A8") == "用")
        #expect(RouteComponentCoding.decode("%zz") == nil)
        #expect(RouteComponentCoding.decode("%E7%94") == nil)
        #expect(RouteComponentCoding.decode("100%") == nil)
    }
}

extension RouterURLGenerationTests {
    struct RoundTripCase: Sendable, CustomTestStringConvertible {
        var value: String

        var testDescription: String { "value \(value.debugDescription)" }
    }

    static let roundTripValues: [RoundTripCase] = [
        "42", "a/b", "https://x.y/z?a=1&b=2#top", "张三", "with space", "100%", "~", ":id", "a+b", "?&=#", "🐝",
    ].map(RoundTripCase.init)
}
