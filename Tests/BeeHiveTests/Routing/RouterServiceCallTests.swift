import Testing

@testable import BeeHive
@testable import BeeHiveRouter

private struct SpecCartService: ActionHandling, Sendable {
    func handleAction(_ action: String, parameters: RouteParameters) throws -> Any? {
        switch action {
        case "count": return 3
        case "add": return "added \(try parameters.int("item")) × \(parameters["note"] ?? "-")"
        default: throw RouterError.unknownAction(action, service: "Cart", available: ["add", "count"])
        }
    }

    func canHandleAction(_ action: String) -> Bool {
        ["count", "add"].contains(action)
    }
}

private struct SpecEchoService: ActionHandling, Sendable {
    func handleAction(_ action: String, parameters: RouteParameters) throws -> Any? {
        "\(action) \(parameters.values.sorted { $0.key < $1.key })"
    }
}

@Suite("Router: BeeHive service call URLs")
struct RouterServiceCallTests {
    private func makeRouter() -> Router {
        Router(scheme: "app", serviceResolver: .dictionary(["Cart": SpecCartService(), "App.Echo": SpecEchoService()]))
    }

    @Test(
        "scheme://call.service/<Service>.<action> calls the resolved service",
        arguments: RouterServiceCallTests.serviceCallCases)
    func serviceCall(_ row: ServiceCallCase) throws {
        let router = makeRouter()
        if let result = row.result {
            let value = try router.open(row.url)
            #expect(value.map { "\($0)" } == result)
        } else {
            let error = #expect(throws: RouterError.self) { try router.open(row.url) }
            #expect(error?.code == row.code)
        }
    }

    @Test("canOpen asks the resolver and the service")
    func canOpenServiceCalls() {
        let router = makeRouter()
        #expect(router.canOpen("app://call.service/Cart.count"))
        #expect(!router.canOpen("app://call.service/Cart.remove"))
        #expect(!router.canOpen("app://call.service/Nope.count"))
    }

    @Test("a custom resolver closure and host are honoured, and removing it makes such URLs plain routes")
    func customResolver() throws {
        let router = Router(scheme: "app")
        router.setServiceResolver(
            ServiceActionResolver { name in name == "Cart" ? SpecCartService() : nil }, host: "svc")
        #expect(try router.open("app://svc/Cart.count") as? Int == 3)
        router.setServiceResolver(nil)
        try router.register(pattern: "app://svc/:call") { request in request.parameters["call"] }
        #expect(try router.open("app://svc/Cart.count") as? String == "Cart.count")
    }

    @Test("an unknown service reaches the fallback, like an unknown route")
    func unknownServiceFallsBack() throws {
        let router = makeRouter()
        router.setFallback { fallback in "fallback: \(fallback.reason.code)" }
        #expect(try router.open("app://call.service/Nope.count") as? String == "fallback: serviceNotFound")
    }
}

extension RouterServiceCallTests {
    struct ServiceCallCase: Sendable, CustomTestStringConvertible {
        var url: String
        var result: String?
        var code: RouterError.Code?
        var testDescription: String { url }
    }

    static let serviceCallCases: [ServiceCallCase] = [
        ServiceCallCase(url: "app://call.service/Cart.count", result: "3"),
        ServiceCallCase(url: "app://call.service/Cart.add?item=5&note=gift%20wrap", result: "added 5 × gift wrap"),
        ServiceCallCase(url: "app://call.service/App.Echo.ping?x=1", result: "ping [(key: \"x\", value: \"1\")]"),
        ServiceCallCase(url: "app://call.service/Cart.remove", code: .unknownAction),
        ServiceCallCase(url: "app://call.service/Cart.add?item=many", code: .invalidParameter),
        ServiceCallCase(url: "app://call.service/Nope.count", code: .serviceNotFound),
        ServiceCallCase(url: "app://call.service/Cart", code: .malformedURL),
        ServiceCallCase(url: "app://call.service/Cart.", code: .malformedURL),
        ServiceCallCase(url: "app://call.service/Cart.count/extra", code: .malformedURL),
    ]
}
