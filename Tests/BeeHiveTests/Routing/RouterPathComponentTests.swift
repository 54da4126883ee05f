import Testing

@testable import BeeHive
@testable import BeeHiveRouter

/// A service answering BHRouter call URLs: echoes the action and its parameters.
private struct PathEchoService: ActionHandling, Sendable {
    func handleAction(_ action: String, parameters: RouteParameters) throws -> Any? {
        "\(action) " + parameters.names.map { "\($0)=\(parameters[$0] ?? "")" }.joined(separator: ",")
    }

    func canHandleAction(_ action: String) -> Bool { action != "missing" }
}

/// A type a register URL registers as a service's implementation.
final class PathRegisteredCart: ServiceImplementation, ActionHandling {
    init() {}
    func handleAction(_ action: String, parameters: RouteParameters) throws -> Any? { "cart \(action)" }
}

@Suite("Router: BHRouter's path components (call, register, jump; params keyed by component)")
struct RouterPathComponentTests {
    /// `params` as BHRouter writes it: JSON, percent-encoded in the query.
    static func params(_ json: String) -> String { "params=" + RouteComponentCoding.encode(json) }

    private func makeRouter() throws -> Router {
        let router = Router(scheme: "app", serviceResolver: .dictionary(["App.Echo": PathEchoService()]))
        try router.addPathComponent("echo", implementation: "App.EchoImpl")
        return router
    }

    @Test("call: <key>.<Service>.<action> calls the service's action with the component's params over the query")
    func callForm() throws {
        let router = try makeRouter()
        let url = "app://call.service/echo.App.Echo.add?tab=1&sku=0&" + Self.params(#"{"echo":{"sku":42,"gift":true}}"#)
        let results = try #require(try router.open(url) as? [PathComponentResult])
        #expect(results.map(\.key) == ["echo"])
        #expect(results.map(\.target) == ["App.Echo"])
        #expect(results.first?.value as? String == "add gift=true,sku=42,tab=1")
        #expect(router.canOpen(url))
        #expect(!router.canOpen("app://call.service/echo.App.Echo.missing"))
    }

    @Test("BHRouter's own host call.service.beehive is accepted too; several components run in order")
    func severalComponents() throws {
        let router = try makeRouter()
        let seen = LockedValue<[String]>([])
        try router.addPathComponent("log", implementation: "App.Log") { request in
            seen.withLock { $0.append("\(request.target).\(request.action ?? "")") }
            return request.parameters["line"]
        }
        let url =
            "app://call.service.beehive/log.App.Log.write/echo.App.Echo.count/log.App.Log.flush?"
            + Self.params(#"{"log":{"line":"7"}}"#)
        let results = try #require(try router.open(url) as? [PathComponentResult])
        #expect(results.map(\.key) == ["log", "echo", "log"])
        #expect(results.map { $0.value.map { "\($0)" } ?? "nil" } == ["7", "count ", "7"])
        #expect(seen.withLock { $0 } == ["App.Log.write", "App.Log.flush"])
    }

    @Test("a plain service call <Service>.<action> is unchanged when its first part is no key")
    func plainServiceCall() throws {
        let router = try makeRouter()
        #expect(try router.open("app://call.service/App.Echo.list?x=1") as? String == "list x=1")
    }

    @Test("register: the key's type becomes the implementation of the named service in the router's hive")
    func registerForm() throws {
        let router = try makeRouter()
        try router.addPathComponent("cart", for: PathRegisteredCart.self)
        let refused = #expect(throws: RouterError.self) { try router.open("app://register.beehive/cart.App.Cart") }
        #expect(refused?.code == .serviceNotFound)
        #expect(refused?.message.contains("setPathComponentHive") == true)

        let hive = Hive()
        router.setPathComponentHive(hive)
        #expect(router.canOpen("app://register.beehive/cart.App.Cart"))
        let results = try #require(try router.open("app://register.beehive/cart.App.Cart") as? [PathComponentResult])
        let registration = try #require(results.first?.value as? ServiceRegistration)
        #expect(registration.service == "App.Cart")
        #expect(registration.implementation == "BeeHiveTests.PathRegisteredCart")
        #expect(try hive.createService(named: "App.Cart") is PathRegisteredCart)
        // Without a resolver, the call form resolves services from that hive.
        let plain = try makeRouterWithoutResolver(hive: hive)
        let called = try #require(try plain.open("app://call.service/cart.App.Cart.total") as? [PathComponentResult])
        #expect(called.first?.value as? String == "cart total")
    }

    private func makeRouterWithoutResolver(hive: Hive) throws -> Router {
        let router = Router(scheme: "app")
        try router.addPathComponent("cart", for: PathRegisteredCart.self)
        router.setPathComponentHive(hive)
        return router
    }

    @Test("jump: the key's handler opens the target; the path's push or modal wins over the fragment's")
    func jumpForm() throws {
        let router = try makeRouter()
        try router.addPathComponent("home", implementation: "App.HomeModule") { request in
            "\(request.implementation) \(request.target) \(request.action ?? "-") \(request.parameters["tab"] ?? "-")"
        }
        let pushed = try #require(
            try router.open("app://jump.vc.beehive/home.App.Home.push?" + Self.params(#"{"home":{"tab":"feed"}}"#))
                as? [PathComponentResult])
        #expect(pushed.first?.value as? String == "App.HomeModule App.Home push feed")
        let pathWins = try #require(
            try router.open("app://jump.vc.beehive/home.App.Home.push#modal") as? [PathComponentResult])
        #expect(pathWins.first?.value as? String == "App.HomeModule App.Home push -")
        let fromFragment = try #require(
            try router.open("app://jump.vc.beehive/home.App.Home#Modal") as? [PathComponentResult])
        #expect(fromFragment.first?.value as? String == "App.HomeModule App.Home modal -")

        let error = #expect(throws: RouterError.self) { try router.open("app://jump.vc.beehive/echo.App.Echo") }
        #expect(error?.code == .unknownAction)
        #expect(!router.canOpen("app://jump.vc.beehive/echo.App.Echo"))
    }

    @Test("an unknown key is a route-not-found kind of error: the fallback gets it, naming the known keys")
    func unknownKey() throws {
        let router = try makeRouter()
        let error = #expect(throws: RouterError.self) { try router.open("app://jump.vc.beehive/nope.App.X.push") }
        #expect(error?.code == .unknownPathComponent)
        #expect(error?.message.contains("expected a path component key (echo); found 'nope'") == true)
        router.setFallback { fallback in "fallback: \(fallback.reason.code)" }
        #expect(try router.open("app://jump.vc.beehive/nope.App.X.push") as? String == "fallback: unknownPathComponent")
    }

    @Test("a key that names a type but was never added is refused: a URL cannot choose a type by its name")
    func typeNameIsNoKey() throws {
        let hive = Hive()
        let router = try makeRouter()
        router.setPathComponentHive(hive)
        for url in [
            "app://register.beehive/PathRegisteredCart.App.Cart", "app://register.beehive/PathRegisteredCart",
            "app://jump.vc.beehive/PathRegisteredCart.App.Cart",
            "app://call.service/echo.App.Echo.a/PathRegisteredCart.App.Echo.b",
        ] {
            let error = #expect(throws: RouterError.self, "\(url)") { try router.open(url) }
            #expect(error?.code == .unknownPathComponent, "\(url)")
            #expect(error?.message.contains("found 'PathRegisteredCart', which this router has no key for") == true)
            #expect(!router.canOpen(url), "\(url)")
        }
        #expect(hive.registration(for: "App.Cart") == nil)
        #expect(hive.moduleDeclarations.isEmpty)
    }

    @Test("addPathComponent(for:) adds a type under its own name, for URLs that named the class in BHRouter")
    func keyFromTypeName() throws {
        let hive = Hive()
        let router = try makeRouter()
        router.setPathComponentHive(hive)
        try router.addPathComponent(for: PathRegisteredCart.self)
        #expect(router.pathComponents.map(\.key) == ["PathRegisteredCart", "echo"])
        #expect(router.pathComponents.first?.implementation == "BeeHiveTests.PathRegisteredCart")
        try router.open("app://register.beehive/PathRegisteredCart.App.Cart")
        #expect(try hive.createService(named: "App.Cart") is PathRegisteredCart)
        let taken = #expect(throws: RouterError.self) { try router.addPathComponent(for: PathRegisteredCart.self) }
        #expect(taken?.code == .duplicateRoute)
        let generic = #expect(throws: RouterError.self) { try router.addPathComponent(for: [Int].self) }
        #expect(generic?.code == .malformedPattern)
        #expect(generic?.message.contains("path component 'Array<Int>'") == true)
    }

    @Test(
        "malformed components and params are clear errors",
        arguments: [
            ("app://call.service/echo.App.Echo.add?" + params("[1]"), "found an array"),
            ("app://call.service/echo.App.Echo.add?" + params(#"{"echo":3}"#), "found an integer for 'echo'"),
            ("app://call.service/echo.App.Echo.add?" + params(#"{"echo":{"a":null}}"#), "found null for 'echo'.'a'"),
            ("app://call.service/echo.App.Echo.add?" + params("{nope"), "found text that is not JSON"),
            ("app://register.beehive/echo.", "expected path components '<key>[.<Service>]', found 'echo.'"),
            ("app://call.service/echo..add", "found 'echo..add'"),
        ])
    func malformed(_ url: String, _ message: String) throws {
        let router = try makeRouter()
        router.setPathComponentHive(Hive())
        let error = #expect(throws: RouterError.self) { try router.open(url) }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test("keys are letters, digits, '_' and '-', and each is added once; removing one turns its URLs off")
    func keys() throws {
        let router = try makeRouter()
        #expect(throws: RouterError.self) { try router.addPathComponent("a.b", implementation: "X") }
        #expect(throws: RouterError.self) { try router.addPathComponent("", implementation: "X") }
        let duplicate = #expect(throws: RouterError.self) { try router.addPathComponent("echo", implementation: "X") }
        #expect(duplicate?.message.contains("taken by App.EchoImpl") == true)
        #expect(router.pathComponents.map(\.key) == ["echo"])
        #expect(router.removePathComponent("echo"))
        #expect(!router.removePathComponent("echo"))
        // With no path components left, BHRouter URLs are ordinary URLs again.
        let error = #expect(throws: RouterError.self) { try router.open("app://register.beehive/echo.App.X") }
        #expect(error?.code == .routeNotFound)
    }
}
