import Dispatch
import Testing

@testable import BeeHive
@testable import BeeHiveRouter

/// MGJRouter's README and demo examples, written against `Router`.
@Suite("Compatibility: MGJRouter")
struct MGJRouterCompatibilityTests {
    @Test("registerURLPattern:toHandler: and openURL:withUserInfo:completion: reach the handler with the user info")
    func registerAndOpen() throws {
        let router = Router(scheme: "mgj")
        let seen = LockedValue<[String]>([])
        // [MGJRouter registerURLPattern:@"mgj://foo/bar" toHandler:^(NSDictionary *routerParameters) { … }];
        try router.register(pattern: "mgj://foo/bar") { request in
            seen.withLock { $0.append("\(request.url) \(request.userInfo["user_id"].map { "\($0)" } ?? "-")") }
            return nil
        }
        try router.open("mgj://foo/bar")
        try router.open("mgj://foo/bar", userInfo: ["user_id": 1900])
        #expect(seen.withLock { $0 } == ["mgj://foo/bar -", "mgj://foo/bar 1900"])
    }

    @Test("demo: Chinese characters in a pattern and a URL")
    func chineseCharacters() throws {
        let router = Router(scheme: "mgj")
        try router.register(pattern: "mgj://category/家居") { _ in "home goods" }
        #expect(try router.object(forURL: "mgj://category/家居") as? String == "home goods")
        #expect(try router.object(forURL: "mgj://category/%E5%AE%B6%E5%B1%85") as? String == "home goods")
    }

    @Test("demo: ':query' captures a component and query items join the parameters")
    func parametersAndQuery() throws {
        let router = Router(scheme: "mgj")
        try router.register(pattern: "mgj://search/:query") { request in
            "\(request.parameters["query"] ?? "") \(request.parameters["color"] ?? "")"
        }
        #expect(try router.object(forURL: "mgj://search/bicycle?color=red") as? String == "bicycle red")
    }

    @Test("demo 'demoFallback': the bare pattern mgj:// receives every mgj URL that matches nothing else")
    func schemeWideFallback() throws {
        let router = Router(scheme: "mgj")
        try router.register(pattern: "mgj://") { request in "fallback \(request.url)" }
        try router.register(pattern: "mgj://foo/bar") { _ in "foo/bar" }
        #expect(try router.object(forURL: "mgj://foo/bar") as? String == "foo/bar")
        #expect(try router.object(forURL: "mgj://foo/baz") as? String == "fallback mgj://foo/baz")
        #expect(try router.object(forURL: "mgj://other") as? String == "fallback mgj://other")
        #expect(try router.object(forURL: "mgj://") as? String == "fallback mgj://")
        #expect(router.canOpen("mgj://anything/at/all"))
        // It is the same route as mgj://~: registering both is a duplicate.
        let duplicate = #expect(throws: RouterError.self) { try router.register(pattern: "mgj://~") { _ in nil } }
        #expect(duplicate?.code == .duplicateRoute)
        // deregisterURLPattern:@"mgj://" removes it.
        #expect(router.deregister(pattern: "mgj://"))
        #expect(throws: RouterError.self) { try router.open("mgj://foo/baz") }
    }

    @Test("a parameter with a literal suffix, ':id.html', captures the id without the suffix")
    func parameterWithSuffix() throws {
        let router = Router(scheme: "mgj")
        try router.register(pattern: "mgj://detail/:id.html") { request in try request.parameters.int("id") }
        #expect(try router.object(forURL: "mgj://detail/42.html") as? Int == 42)
        // MGJRouter strips the suffix when present: a component without it matches too.
        #expect(try router.object(forURL: "mgj://detail/42") as? Int == 42)
        #expect(router.registeredPatterns == ["mgj://detail/:id.html"])
        #expect(
            try Router.generateURL(pattern: "mgj://detail/:id.html", parameters: ["id": 7]) == "mgj://detail/7.html")
        // It matches the same URLs as mgj://detail/:id: a duplicate.
        #expect(throws: RouterError.self) { try router.register(pattern: "mgj://detail/:id") { _ in nil } }
        #expect(throws: RouterError.self) { try router.register(pattern: "mgj://detail/:id.") { _ in nil } }
    }

    @Test("a URL longer than every pattern: routeNotFound here; '/~' gives MGJRouter's prefix fallback explicitly")
    func longerURL() throws {
        let router = Router(scheme: "mgj")
        try router.register(pattern: "mgj://foo/bar") { _ in "exact" }
        let error = #expect(throws: RouterError.self) { try router.open("mgj://foo/bar/extra") }
        #expect(error?.code == .routeNotFound)
        // The migration: opt the route in with a trailing '~'; the extra components are the wildcard's.
        try router.register(pattern: "mgj://foo/bar/~") { request in request.wildcardComponents }
        #expect(try router.object(forURL: "mgj://foo/bar/extra/more") as? [String] == ["extra", "more"])
        #expect(try router.object(forURL: "mgj://foo/bar") as? String == "exact")
    }

    @Test("'~' in the middle of a pattern matches exactly one component there, as in MGJRouter")
    func wildcardInTheMiddle() throws {
        let router = Router(scheme: "mgj")
        // [MGJRouter registerURLPattern:@"mgj://~/detail/:id" toHandler:…]: any one host, then detail/<id>.
        try router.register(pattern: "mgj://~/detail/:id") { request in try request.parameters.int("id") }
        #expect(try router.object(forURL: "mgj://shop/detail/42") as? Int == 42)
        #expect(try router.object(forURL: "mgj://mall/detail/7") as? Int == 7)
        #expect(router.canOpen("mgj://anything/detail/1"))
        #expect(!router.canOpen("mgj://shop/sub/detail/1"), "one component, not several")
        #expect(!router.canOpen("mgj://detail/1"), "one component, not none")
        // Last, '~' still means the rest of the path here (see the row about longer URLs).
    }

    @Test("demo 'completion': the handler receives the completion and calls it later, after open has returned")
    func asynchronousCompletion() throws {
        let router = Router(scheme: "mgj")
        let queue = DispatchQueue(label: "compat.mgj.detail")
        let release = DispatchSemaphore(value: 0)
        try router.register(pattern: "mgj://detail") { request, completion in
            let id = request.userInfo["id"] as? Int ?? 0
            // Simulated asynchronous work: finishes only once the test has seen `open` return.
            queue.async {
                release.wait()
                completion("opened \(id)")
            }
        }
        let done = DispatchSemaphore(value: 0)
        let results = LockedValue<[String]>([])
        let returned = try router.open("mgj://detail", userInfo: ["id": 3]) { value in
            results.withLock { $0.append(value as? String ?? "nil") }
            done.signal()
        }
        #expect(returned == nil, "a completing handler's result goes to the completion")
        #expect(results.withLock { $0 }.isEmpty, "the router did not call the completion when open returned")
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(results.withLock { $0 } == ["opened 3"])
    }

    @Test(
        "a plain handler's completion runs once with its result; a handler that calls it itself is not completed twice")
    func completionOnce() throws {
        let router = Router(scheme: "mgj")
        try router.register(pattern: "mgj://plain") { _ in "result" }
        try router.register(pattern: "mgj://early") { request in
            request.completion("early")
            return "late"
        }
        let values = LockedValue<[String]>([])
        try router.open("mgj://plain") { value in values.withLock { $0.append(value as? String ?? "nil") } }
        try router.open("mgj://early") { value in values.withLock { $0.append(value as? String ?? "nil") } }
        #expect(values.withLock { $0 } == ["result", "early"])
    }

    @Test("registerURLPattern:toObjectHandler: and objectForURL: return the handler's object")
    func objectForURL() throws {
        let router = Router(scheme: "mgj")
        try router.register(pattern: "mgj://search_top_bar") { _ in 42 }
        #expect(try router.object(forURL: "mgj://search_top_bar", as: Int.self) == 42)
    }

    @Test("generateURLWithPattern:parameters: takes names here, not positions")
    func generateURL() throws {
        // MGJRouter: [MGJRouter generateURLWithPattern:@"mgj://search/:keyword" parameters:@[@"Hangzhou"]]
        let url = try Router.generateURL(pattern: "mgj://search/:keyword", parameters: ["keyword": "Hangzhou"])
        #expect(url == "mgj://search/Hangzhou")
    }

    @Test("canOpenURL: answers from the routes; deregisterURLPattern: removes one")
    func canOpenAndDeregister() throws {
        let router = Router(scheme: "mgj")
        try router.register(pattern: "mgj://foo/bar") { _ in nil }
        #expect(router.canOpen("mgj://foo/bar"))
        #expect(!router.canOpen("mgj://foo/baz"))
        #expect(router.deregister(pattern: "mgj://foo/bar"))
        #expect(!router.canOpen("mgj://foo/bar"))
    }
}
