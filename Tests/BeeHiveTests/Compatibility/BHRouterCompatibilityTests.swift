import Testing

@testable import BeeHive
@testable import BeeHiveRouter

/// A service that answers BHRouter call URLs: echoes the action and its parameters, sorted.
private struct CompatCartService: ActionHandling, Sendable {
    func handleAction(_ action: String, parameters: RouteParameters) throws -> Any? {
        "\(action) " + parameters.names.sorted().map { "\($0)=\(parameters[$0] ?? "")" }.joined(separator: ",")
    }
}

/// BHRouter's header comments and URL forms, written against `Router`.
@Suite("Compatibility: BHRouter")
struct BHRouterCompatibilityTests {
    private func makeRouter(hive: Hive = Hive()) throws -> Router {
        let router = Router(
            scheme: "com.alibaba.beehive", serviceResolver: .dictionary(["App.Cart": CompatCartService()]))
        router.setPathComponentHive(hive)
        try router.addPathComponent("cart", implementation: "App.CartImpl")
        return router
    }

    @Test("register.beehive/<key> with a module class registers the module (registerDynamicModule:)")
    func registerModule() throws {
        let hive = Hive()
        let router = try makeRouter(hive: hive)
        try router.addPathComponent("home", implementation: "App.HomeModule")
        let results = try #require(
            try router.open("com.alibaba.beehive://register.beehive/home") as? [PathComponentResult])
        #expect(results.map(\.key) == ["home"])
        #expect(hive.moduleDeclarations.map(\.name) == ["App.HomeModule"])
        #expect(hive.moduleDeclarations.first?.level == .normal, "no level given: normal, as in BeeHive")
        // <key>.<Protocol> still registers the key's class as the protocol's implementation.
        try router.open("com.alibaba.beehive://register.beehive/cart.App.CartService")
        #expect(hive.registration(for: "App.CartService")?.implementation == "App.CartImpl")
    }

    @Test("jump.vc.beehive: the mode is push by default, modal when the path or the fragment says so")
    func defaultJumpModePush() throws {
        let router = try makeRouter()
        try router.addPathComponent("detail", implementation: "App.DetailScreen") { request in request.action }
        func mode(_ url: String) throws -> String? {
            let results = try #require(try router.open(url) as? [PathComponentResult])
            return results.first?.value as? String
        }
        #expect(try mode("com.alibaba.beehive://jump.vc.beehive/detail.App.Detail") == "push")
        #expect(try mode("com.alibaba.beehive://jump.vc.beehive/detail.App.Detail.modal") == "modal")
        #expect(try mode("com.alibaba.beehive://jump.vc.beehive/detail.App.Detail.MODAL") == "modal")
        #expect(try mode("com.alibaba.beehive://jump.vc.beehive/detail.App.Detail#modal") == "modal")
    }

    @Test("jump.vc.beehive: when the path and the fragment both give a mode, the path's wins, as in BHRouter")
    func jumpModePathWinsOverFragment() throws {
        let router = try makeRouter()
        try router.addPathComponent("detail", implementation: "App.DetailScreen") { request in request.action }
        func modes(_ url: String) throws -> [String?] {
            try #require(try router.open(url) as? [PathComponentResult]).map { $0.value as? String }
        }
        // They agree: that mode.
        #expect(try modes("com.alibaba.beehive://jump.vc.beehive/detail.App.Detail.modal#modal") == ["modal"])
        #expect(try modes("com.alibaba.beehive://jump.vc.beehive/detail.App.Detail.push#push") == ["push"])
        // They conflict: the component's own mode, never the fragment's.
        #expect(try modes("com.alibaba.beehive://jump.vc.beehive/detail.App.Detail.push#modal") == ["push"])
        #expect(try modes("com.alibaba.beehive://jump.vc.beehive/detail.App.Detail.MODAL#push") == ["modal"])
        // The fragment is the mode of the components that name none.
        #expect(
            try modes("com.alibaba.beehive://jump.vc.beehive/detail.App.A/detail.App.B.push/detail.App.C#modal")
                == ["modal", "push", "modal"])
    }

    @Test("a component key never added is refused even when it names a type; addPathComponent(for:) keeps the URL")
    func typeNameKeyIsRefused() throws {
        let hive = Hive()
        let router = try makeRouter(hive: hive)
        // BHRouter: register.beehive/CompatCartService.App.Cart takes the key as a class name (NSClassFromString).
        let url = "com.alibaba.beehive://register.beehive/CompatCartService.App.Cart"
        #expect(!router.canOpen(url))
        let error = #expect(throws: RouterError.self) { try router.open(url) }
        #expect(error?.code == .unknownPathComponent)
        #expect(error?.message.contains("expected a path component key (cart); found 'CompatCartService'") == true)
        #expect(error?.message.contains("a URL cannot name a type by itself") == true)
        #expect(hive.registration(for: "App.Cart") == nil, "nothing was registered")
        // The migration: one line per type that URLs name; the URL stays as it was.
        try router.addPathComponent(for: CompatCartService.self)
        #expect(router.canOpen(url))
        try router.open(url)
        #expect(hive.registration(for: "App.Cart")?.implementation.hasSuffix("CompatCartService") == true)
    }

    @Test("hosts match case-insensitively: CALL.SERVICE.BEEHIVE, Register.BeeHive")
    func caseInsensitiveHosts() throws {
        let hive = Hive()
        let router = try makeRouter(hive: hive)
        let results = try #require(
            try router.open("com.alibaba.beehive://CALL.SERVICE.BEEHIVE/cart.App.Cart.count") as? [PathComponentResult])
        #expect(results.first?.value as? String == "count ")
        #expect(router.canOpen("com.alibaba.beehive://Call.Service.BeeHive/cart.App.Cart.count"))
        try router.open("com.alibaba.beehive://Register.BeeHive/cart.App.CartService")
        #expect(hive.registration(for: "App.CartService") != nil)
    }

    @Test("openURL:withParams: per-component parameters override the params JSON, which overrides the query")
    func perComponentParameters() throws {
        let router = try makeRouter()
        let params = RouteComponentCoding.encode(#"{"cart":{"sku":"2","gift":"yes"}}"#)
        let url = "com.alibaba.beehive://call.service.beehive/cart.App.Cart.add?sku=1&tab=3&params=\(params)"
        let results = try router.open(url, parameters: ["cart": ["sku": 42]])
        #expect(results.map(\.value).first as? String == "add gift=yes,sku=42,tab=3")
        // Without them, the params JSON wins over the query.
        let plain = try router.open(url, parameters: [:])
        #expect(plain.first?.value as? String == "add gift=yes,sku=2,tab=3")
        // A URL that is not one of BHRouter's forms is refused, not run as something else.
        let error = #expect(throws: RouterError.self) {
            try router.open("com.alibaba.beehive://user/1", parameters: ["cart": ["sku": 1]])
        }
        #expect(error?.code == .routeNotFound)
    }

    @Test("globalRouter: the scheme is URLGlobalScheme of BeeHive.plist, com.alibaba.beehive without one")
    func globalScheme() throws {
        defer { Router.setGlobalScheme(nil) }
        Router.setGlobalScheme(nil)
        #expect(Router.globalScheme == "com.alibaba.beehive")
        #expect(Router.globalSchemeRouter.scheme == "com.alibaba.beehive")
        let plist = try compatibilityFile(
            "BeeHive.plist",
            propertyList(
                """
                <dict>
                    <key>URLGlobalScheme</key><string>shop</string>
                    <key>moduleClasses</key><array/>
                </dict>
                """))
        #expect(try Router.loadGlobalScheme(fromConfig: plist) == "shop")
        #expect(Router.globalSchemeRouter === Router.forScheme("shop"))
        // The same file still declares modules.
        #expect(try Hive().loadModules(from: plist).isEmpty)
        // No URLGlobalScheme: back to the default.
        let none = try compatibilityFile("BeeHive.plist", propertyList("<dict><key>moduleClasses</key><array/></dict>"))
        #expect(try Router.loadGlobalScheme(fromConfig: none) == "com.alibaba.beehive")
        // A value that is no scheme is an error that changes nothing.
        Router.setGlobalScheme("shop")
        let bad = try compatibilityFile(
            "BeeHive.plist", propertyList("<dict><key>URLGlobalScheme</key><string>1 bad</string></dict>"))
        let error = #expect(throws: HiveError.self) { try Router.loadGlobalScheme(fromConfig: bad) }
        #expect(error?.code == .malformedEntry)
        #expect(Router.globalScheme == "shop")
        let missing = #expect(throws: HiveError.self) { try Router.loadGlobalScheme(fromConfig: plist + ".absent") }
        #expect(missing?.code == .fileNotFound)
    }

    @Test("addPathComponent:forClass: and removePathComponent: turn a key's URLs on and off")
    func addAndRemove() throws {
        let router = try makeRouter()
        #expect(router.canOpen("com.alibaba.beehive://call.service.beehive/cart.App.Cart.count"))
        #expect(router.removePathComponent("cart"))
        #expect(!router.canOpen("com.alibaba.beehive://call.service.beehive/cart.App.Cart.count"))
    }

    @Test("routerForScheme: and unRegisterRouterForScheme: keep one router per scheme")
    func routerPerScheme() throws {
        let scheme = "compat-bh-\(UInt32.random(in: 0...UInt32.max))"
        let router = Router.forScheme(scheme)
        #expect(Router.forScheme(scheme.uppercased()) === router)
        #expect(Router.removeRouter(forScheme: scheme))
        #expect(Router.forScheme(scheme) !== router)
        Router.removeRouter(forScheme: scheme)
    }
}
