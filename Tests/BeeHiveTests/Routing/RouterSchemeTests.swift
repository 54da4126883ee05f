import Testing

@testable import BeeHive
@testable import BeeHiveRouter

@Suite("Router: one router per scheme, and a global router")
struct RouterSchemeTests {
    @Test("forScheme returns one router per scheme, case-insensitively, until it is removed")
    func forSchemeIsShared() {
        let scheme = "spec-shared-\(UInt32.random(in: 0...UInt32.max))"
        let first = Router.forScheme(scheme)
        #expect(Router.forScheme(scheme.uppercased()) === first)
        #expect(first.scheme == scheme)
        #expect(Router.schemes.contains(scheme))
        #expect(Router.removeRouter(forScheme: scheme))
        #expect(Router.forScheme(scheme) !== first)
        Router.removeRouter(forScheme: scheme)
    }

    @Test("routers for different schemes keep separate tables")
    func separateTables() throws {
        let buyer = Router(scheme: "buyer")
        let seller = Router(scheme: "seller")
        try buyer.register(pattern: "order/:id") { _ in "buyer" }
        try seller.register(pattern: "order/:id") { _ in "seller" }
        #expect(try buyer.open("buyer://order/1") as? String == "buyer")
        #expect(try seller.open("seller://order/1") as? String == "seller")
        let error = #expect(throws: RouterError.self) { try buyer.open("seller://order/1") }
        #expect(error?.code == .unknownScheme)
        #expect(error?.message.contains("expected scheme 'buyer'") == true)
    }

    @Test("router(forURL:) picks the scheme's router, or the global router")
    func routerForURL() throws {
        let scheme = "spec-pick-\(UInt32.random(in: 0...UInt32.max))"
        defer { Router.removeRouter(forScheme: scheme) }
        let router = Router.forScheme(scheme)
        #expect(try Router.router(forURL: "\(scheme)://x") === router)
        #expect(try Router.router(forURL: "other-\(scheme)://x") === Router.global)
        #expect(throws: RouterError.self) { try Router.router(forURL: "no scheme") }
    }

    @Test("the global router holds routes of several schemes in one index")
    func globalRouterTakesAnyScheme() throws {
        let router = Router()
        try router.register(pattern: "app://home") { _ in "app" }
        try router.register(pattern: "shop://home") { _ in "shop" }
        #expect(try router.open("app://home") as? String == "app")
        #expect(try router.open("SHOP://home") as? String == "shop")
        let error = #expect(throws: RouterError.self) { try router.open("web://home") }
        #expect(error?.code == .unknownScheme)
        #expect(error?.message.contains("'web'") == true)
    }
}
