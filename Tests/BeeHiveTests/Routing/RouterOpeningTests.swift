import Synchronization
import Testing

@testable import BeeHive
@testable import BeeHiveRouter

private let userRouteInstances = Atomic<Int>(0)

private struct SpecUserRoute: RouteHandler {
    init() {
        userRouteInstances.add(1, ordering: .relaxed)
    }

    func handle(_ request: RouteRequest) throws -> Any? {
        "user \(try request.parameters.int("id"))"
    }
}

private struct SpecHandlerFailure: Error, Equatable {
    var code: Int
}

@Suite("Router: opening URLs")
struct RouterOpeningTests {
    @Test("user info and the completion reach the handler and the caller")
    func userInfoAndCompletion() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://user/:id") { request in
            "\(request.parameters["id"]!) from \(request.userInfo["source"] as? String ?? "?")"
        }
        let completed = LockedValue<[String]>([])
        let result = try router.open("app://user/9", userInfo: ["source": "push"]) { value in
            completed.withLock { $0.append(value as? String ?? "not a string") }
        }
        #expect(result as? String == "9 from push")
        let completions = completed.withLock { $0 }
        #expect(completions == ["9 from push"])
    }

    @Test("the completion is not called when opening fails")
    func completionNotCalledOnFailure() throws {
        let router = Router(scheme: "app")
        let called = Atomic<Bool>(false)
        #expect(throws: RouterError.self) {
            try router.open("app://nowhere") { _ in called.store(true, ordering: .relaxed) }
        }
        let wasCalled = called.load(ordering: .relaxed)
        #expect(!wasCalled)
    }

    @Test("object(forURL:as:) returns the typed result or a typeMismatch error")
    func typedObject() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://count") { _ in 3 }
        try router.register(pattern: "app://nothing") { _ in nil }
        #expect(try router.object(forURL: "app://count", as: Int.self) == 3)
        #expect(try router.object(forURL: "app://count") as? Int == 3)
        let wrongType = #expect(throws: RouterError.self) { try router.object(forURL: "app://count", as: String.self) }
        #expect(wrongType?.code == .typeMismatch)
        #expect(wrongType?.message.contains("expected a result of type String, found Int (3)") == true)
        let empty = #expect(throws: RouterError.self) { try router.object(forURL: "app://nothing", as: Int.self) }
        #expect(empty?.message.contains("found nil") == true)
    }

    @Test("a handler type registered by metatype gets a fresh instance per URL")
    func handlerType() throws {
        let router = Router(scheme: "app")
        let handlerType: any RouteHandler.Type = SpecUserRoute.self
        try router.register(pattern: "app://user/:id", handlerType: handlerType)
        let before = userRouteInstances.load(ordering: .relaxed)
        #expect(try router.open("app://user/1") as? String == "user 1")
        #expect(try router.open("app://user/2") as? String == "user 2")
        let after = userRouteInstances.load(ordering: .relaxed)
        #expect(after - before >= 2)
        let error = #expect(throws: RouterError.self) { try router.open("app://user/x") }
        #expect(error?.code == .invalidParameter)
    }

    @Test("an error thrown by a handler reaches the caller unchanged and skips the fallback")
    func handlerErrorsPropagate() throws {
        let router = Router(scheme: "app")
        let fallbackCalls = Atomic<Int>(0)
        router.setFallback { _ in
            fallbackCalls.add(1, ordering: .relaxed)
            return nil
        }
        try router.register(pattern: "app://fail") { _ in throw SpecHandlerFailure(code: 7) }
        try router.register(pattern: "app://nested") { _ in try router.open("app://missing") }
        #expect(throws: SpecHandlerFailure(code: 7)) { try router.open("app://fail") }
        // The nested open reaches the fallback once, for its own URL only.
        #expect(try router.open("app://nested") == nil)
        let calls = fallbackCalls.load(ordering: .relaxed)
        #expect(calls == 1)
    }

    @Test(
        "typed parameter access reads values or throws a clear error", arguments: RouterOpeningTests.typedParameterCases
    )
    func typedParameters(_ row: TypedParameterCase) throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://p/:v") { request in try row.read(request.parameters) }
        if let expected = row.expected {
            #expect(try router.open(row.url) as? String == expected)
        } else {
            let error = #expect(throws: RouterError.self) { try router.open(row.url) }
            #expect(error?.code == row.code)
            #expect(error?.message.contains("'\(row.url)' (route 'app://p/:v')") == true)
        }
    }

    @Test("a malformed URL is an error value, not a crash", arguments: ["no scheme", "://x", "a b://x", "app://x/%4"])
    func malformedURL(_ url: String) {
        let router = Router()
        let error = #expect(throws: RouterError.self) { try router.open(url) }
        #expect(error?.code == .malformedURL)
        #expect(error?.message.contains(url) == true)
    }
}

extension RouterOpeningTests {
    struct TypedParameterCase: Sendable, CustomTestStringConvertible {
        var url: String
        var read: @Sendable (RouteParameters) throws -> String
        var expected: String?
        var code: RouterError.Code?
        var testDescription: String { url }
    }

    static let typedParameterCases: [TypedParameterCase] = [
        TypedParameterCase(url: "app://p/42", read: { "\(try $0.int("v"))" }, expected: "42"),
        TypedParameterCase(url: "app://p/abc", read: { "\(try $0.int("v"))" }, code: .invalidParameter),
        TypedParameterCase(url: "app://p/2.5", read: { "\(try $0.double("v"))" }, expected: "2.5"),
        TypedParameterCase(url: "app://p/YES", read: { "\(try $0.bool("v"))" }, expected: "true"),
        TypedParameterCase(url: "app://p/0", read: { "\(try $0.bool("v"))" }, expected: "false"),
        TypedParameterCase(url: "app://p/maybe", read: { "\(try $0.bool("v"))" }, code: .invalidParameter),
        TypedParameterCase(
            url: "app://p/300", read: { "\(try $0.value("v", as: UInt8.self))" }, code: .invalidParameter),
        TypedParameterCase(url: "app://p/1", read: { try $0.string("absent") }, code: .missingParameter),
    ]
}
