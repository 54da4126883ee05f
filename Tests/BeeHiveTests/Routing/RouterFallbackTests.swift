import Testing

@testable import BeeHive
@testable import BeeHiveRouter

/// Seed 002's "web page for unknown routes": what the fallback was asked to open.
private struct FallbackWebPage: Equatable {
    var url: String
    var reason: String
}

@Suite("Router: fallback for URLs no route handles")
struct RouterFallbackTests {
    @Test("an unknown route goes to the fallback with the URL, the reason and the user info")
    func unknownRoute() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://home") { _ in "home" }
        router.setFallback { fallback in
            FallbackWebPage(
                url: "\(fallback.url) \(fallback.userInfo["who"] as? String ?? "")", reason: "\(fallback.reason.code)")
        }
        #expect(try router.open("app://home") as? String == "home")
        let page = try router.object(forURL: "app://profile/9", as: FallbackWebPage.self, userInfo: ["who": "me"])
        #expect(page == FallbackWebPage(url: "app://profile/9 me", reason: "routeNotFound"))
    }

    @Test("a redirect to a web URL falls back to a web page, as seed 002 does for old app versions")
    func redirectToWeb() throws {
        let router = Router(scheme: "app")
        router.setRedirects(
            try RedirectTable([RedirectRule(from: "app://promo/~", to: "https://m.example.com/promo/~")]))
        router.setFallback { fallback in FallbackWebPage(url: fallback.url, reason: "\(fallback.reason.code)") }
        let page = try router.object(forURL: "app://promo/2024/spring?ref=push", as: FallbackWebPage.self)
        #expect(
            page == FallbackWebPage(url: "https://m.example.com/promo/2024/spring?ref=push", reason: "unknownScheme"))
    }

    @Test("without a fallback the not-found error is thrown")
    func noFallback() throws {
        let router = Router(scheme: "app")
        router.setFallback { _ in "set" }
        router.setFallback(nil)
        let error = #expect(throws: RouterError.self) { try router.open("app://profile/9") }
        #expect(error?.code == .routeNotFound)
        #expect(error?.message.contains("found none among 0 routes") == true)
        try router.register(pattern: "app://home") { _ in nil }
        let notFound = #expect(throws: RouterError.self) { try router.open("app://profile/9") }
        #expect(notFound?.code == .routeNotFound)
    }

    @Test("a malformed URL never reaches the fallback")
    func malformedSkipsFallback() {
        let router = Router(scheme: "app")
        router.setFallback { _ in "fallback" }
        let error = #expect(throws: RouterError.self) { try router.open("app://bad/%G1") }
        #expect(error?.code == .malformedURL)
    }
}
