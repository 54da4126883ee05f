import Testing

@testable import BeeHive
@testable import BeeHiveRouter

/// What the typed table's handlers produce.
private enum Screen: Equatable {
    case user(Int)
    case post(String, tab: String?)
    case files([String])
    case web(String)
}

@Suite("RouteTable: routes with a declared output type")
struct RouteTableTests {
    private func makeTable() throws -> RouteTable<Screen> {
        let table = RouteTable<Screen>(scheme: "app")
        try table.register(pattern: "app://user/:id") { request in .user(try request.parameters.int("id")) }
        try table.register(pattern: "post/:slug") { request in
            .post(try request.parameters.string("slug"), tab: request.parameters["tab"])
        }
        try table.register(pattern: "app://files/~") { request in .files(request.wildcardComponents) }
        return table
    }

    @Test("opening gives the handler's typed output: captures, query items and wildcards")
    func typedOutput() throws {
        let table = try makeTable()
        #expect(try table.open("app://user/42") == .user(42))
        #expect(try table.open("app://post/hello?tab=comments") == .post("hello", tab: "comments"))
        #expect(try table.open("app://files/a/b/c") == .files(["a", "b", "c"]))
        #expect(table.routeCount == 3)
        #expect(table.registeredPatterns == ["app://files/~", "app://post/:slug", "app://user/:id"])
    }

    @Test("errors are the router's: not found, other scheme, bad parameter, duplicate pattern")
    func errors() throws {
        let table = try makeTable()
        #expect(throws: RouterError.self) { try table.open("app://nowhere") }
        let other = #expect(throws: RouterError.self) { try table.open("web://user/1") }
        #expect(other?.code == .unknownScheme)
        let bad = #expect(throws: RouterError.self) { try table.open("app://user/abc") }
        #expect(bad?.code == .invalidParameter)
        let duplicate = #expect(throws: RouterError.self) {
            try table.register(pattern: "app://user/:name") { _ in .web("") }
        }
        #expect(duplicate?.code == .duplicateRoute)
    }

    @Test("the fallback is typed too, and gets only the URLs no route handles")
    func fallback() throws {
        let table = try makeTable()
        table.setFallback { fallback in .web(fallback.url + " (\(fallback.reason.code))") }
        #expect(try table.open("app://nowhere") == .web("app://nowhere (routeNotFound)"))
        #expect(try table.open("app://user/7") == .user(7))
        #expect(throws: RouterError.self) { try table.open("app://user/abc") }
    }

    @Test("redirects apply before matching; canOpen and match agree with open")
    func redirectsAndMatching() throws {
        let table = try makeTable()
        table.setRedirects(try RedirectTable([RedirectRule(from: "app://profile/:id", to: "app://user/:id")]))
        #expect(try table.open("app://profile/9") == .user(9))
        #expect(try table.match("app://profile/9").pattern == "app://user/:id")
        #expect(table.canOpen("app://profile/9"))
        #expect(table.canOpen("app://files", matching: .prefix))
        #expect(!table.canOpen("app://nowhere"))
        #expect(!table.deregister(pattern: "app://user/:other"), "parameter names are part of the pattern")
        #expect(table.deregister(pattern: "user/:id"))
        #expect(!table.canOpen("app://user/1"))
    }
}
