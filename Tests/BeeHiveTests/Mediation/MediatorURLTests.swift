import Synchronization
import Testing

@testable import BeeHive
@testable import BeeHiveMediator
@testable import BeeHiveRouter

private struct AccountTarget: MediatorTarget {
    static var actions: [MediatorAction<AccountTarget>] {
        [
            .remote("card") { _, request in "card \(try request.parameters.string("name"))" },
            .local("nativeDelete") { _, _ in "deleted" },
            .local("echo") { _, request in request.parameters.description },
            .notFound { _, request in "local notFound for \(request.action)" },
        ]
    }
}

/// A target that (wrongly) declares a `native…` action remote-callable, and counts its instances.
private struct ShareTarget: MediatorTarget {
    static let instances = Atomic(0)
    init() { Self.instances.add(1, ordering: .relaxed) }
    static var actions: [MediatorAction<ShareTarget>] {
        [
            .remote("share") { _, _ in "shared" },
            .remote("nativeShare") { _, _ in "shared" },
            .remote("Native") { _, _ in "case-sensitive, as CTMediator" },
            .notFound(remoteCallable: true) { _, request in "notFound \(request.action)" },
        ]
    }
}

private func makeMediator(scheme: String? = "app") -> Mediator {
    Mediator(scheme: scheme, targets: ["Target_Account": AccountTarget.self])
}

@Suite("Mediator: URL calls and the remote guard")
struct MediatorURLTests {
    @Test(
        "the remote guard lets remote URLs reach only remote-callable actions", arguments: MediatorURLTests.remoteCases)
    func remoteGuard(_ row: RemoteCase) throws {
        let mediator = makeMediator()
        if let result = row.result {
            #expect(try mediator.perform(url: row.url, origin: row.origin) as? String == result)
        } else {
            let error = #expect(throws: MediatorError.self) { try mediator.perform(url: row.url, origin: row.origin) }
            #expect(error?.code == row.code)
            #expect(error?.message.contains(row.url) == true)
        }
    }

    @Test("a refused remote call never reaches the not-found handler; an unknown remote action does")
    func refusedCallsSkipHandler() throws {
        let mediator = makeMediator()
        let seen = LockedValue<[String]>([])
        mediator.setNotFoundHandler { request, error in
            seen.withLock { $0.append("\(request.origin) \(request.action) \(error.code)") }
            return "handled"
        }
        let refused = #expect(throws: MediatorError.self) { try mediator.handleRemoteURL("app://Account/echo") }
        #expect(refused?.code == .remoteCallRefused)
        #expect(refused?.message.contains("'echo' of target 'Target_Account' local-only") == true)
        #expect(try mediator.handleRemoteURL("app://Account/unknown") as? String == "handled")
        let handled = seen.withLock { $0 }
        #expect(handled == ["remote unknown actionNotFound"])
    }

    @Test("a remote call to an action named native… is refused even when the target declares it .remote")
    func nativeActionsAreNeverRemote() throws {
        let mediator = Mediator(scheme: "app", targets: ["Target_Share": ShareTarget.self])
        let seen = LockedValue<[String]>([])
        mediator.setNotFoundHandler { request, error in
            seen.withLock { $0.append("\(request.action) \(error.code)") }
            return "handled"
        }
        let made = ShareTarget.instances.load(ordering: .relaxed)
        for url in ["app://Share/nativeShare", "app://Share/nativeUnknown"] {
            let refused = #expect(throws: MediatorError.self, "\(url)") { try mediator.handleRemoteURL(url) }
            #expect(refused?.code == .remoteCallRefused, "\(url)")
            let expected = "'\(url)': expected a remote call to name an action that does not start with 'native'"
            #expect(refused?.message.contains(expected) == true, "\(refused?.message ?? "")")
            #expect(refused?.message.contains("found '\(url.split(separator: "/").last!)'") == true)
        }
        let direct = #expect(throws: MediatorError.self) {
            try mediator.perform(target: "Share", action: "nativeShare", origin: .remote)
        }
        #expect(direct?.message.contains("target 'Share', action 'nativeShare': expected a remote call") == true)
        #expect(ShareTarget.instances.load(ordering: .relaxed) == made, "refused before any target is made")
        #expect(seen.withLock { $0 }.isEmpty, "neither the target's nor the mediator's not-found handler ran")
        // Local calls reach it; other remote actions still work; the declaration reports what holds.
        #expect(try mediator.perform(url: "app://Share/nativeShare", origin: .local) as? String == "shared")
        #expect(try mediator.handleRemoteURL("app://Share/share") as? String == "shared")
        #expect(try mediator.handleRemoteURL("app://Share/Native") as? String == "case-sensitive, as CTMediator")
        #expect(ShareTarget.actions.map(\.isRemoteCallable) == [true, false, true, true])
    }

    @Test("query items arrive as percent-decoded strings")
    func decodedParameters() throws {
        let mediator = makeMediator()
        let result = try mediator.perform(
            url: "app://Account/echo?url=https%3A%2F%2Fx.y%2Fz&name=%E5%BC%A0", origin: .local)
        #expect(result as? String == #"[name: "张", url: "https://x.y/z"]"#)
        #expect(try mediator.perform(url: "app://Account/card?name=a://b", origin: .remote) as? String == "card a://b")
    }

    @Test("malformed URLs and other schemes are refused with a clear error", arguments: MediatorURLTests.malformedCases)
    func malformed(_ row: MalformedCase) {
        let mediator = makeMediator()
        let error = #expect(throws: MediatorError.self) { try mediator.perform(url: row.url, origin: .local) }
        #expect(error?.code == row.code)
        #expect(error?.message.isEmpty == false)
    }

    @Test("redirects rewrite the URL before the target and action are read")
    func redirects() throws {
        let mediator = makeMediator(scheme: nil)
        mediator.setRedirects(
            try RedirectTable([RedirectRule(from: "app://Profile/:name", to: "app://Account/card?name=:name")]))
        #expect(try mediator.handleRemoteURL("app://Profile/Bee") as? String == "card Bee")
    }

    @Test("a redirect loop is reported as redirectFailed with the router error underneath")
    func redirectLoop() throws {
        let mediator = makeMediator()
        mediator.setRedirects(
            try RedirectTable([
                RedirectRule(from: "app://A/go", to: "app://B/go"),
                RedirectRule(from: "app://B/go", to: "app://A/go"),
            ]))
        let error = #expect(throws: MediatorError.self) { try mediator.perform(url: "app://A/go", origin: .local) }
        #expect(error?.code == .redirectFailed)
        #expect(error?.underlying?.code == .redirectLoop)
    }
}

extension MediatorURLTests {
    struct RemoteCase: Sendable, CustomTestStringConvertible {
        var url: String
        var origin: MediatorOrigin
        var result: String?
        var code: MediatorError.Code?
        var testDescription: String { "\(origin) \(url)" }
    }

    static let remoteCases: [RemoteCase] = [
        RemoteCase(url: "app://Account/card?name=Bee", origin: .remote, result: "card Bee"),
        RemoteCase(url: "app://Account/card?name=Bee", origin: .local, result: "card Bee"),
        RemoteCase(url: "app://Account/nativeDelete", origin: .local, result: "deleted"),
        RemoteCase(url: "app://Account/nativeDelete", origin: .remote, code: .remoteCallRefused),
        RemoteCase(url: "app://Account/nativeMissing", origin: .remote, code: .remoteCallRefused),
        RemoteCase(url: "app://Account/echo?x=1", origin: .remote, code: .remoteCallRefused),
        RemoteCase(url: "app://Account/unknown", origin: .local, result: "local notFound for unknown"),
        RemoteCase(url: "app://Account/unknown", origin: .remote, code: .actionNotFound),
    ]

    struct MalformedCase: Sendable, CustomTestStringConvertible {
        var url: String
        var code: MediatorError.Code
        var testDescription: String { url }
    }

    static let malformedCases: [MalformedCase] = [
        MalformedCase(url: "app://Account", code: .malformedURL),
        MalformedCase(url: "app://Account/card/extra", code: .malformedURL),
        MalformedCase(url: "Account/card", code: .malformedURL),
        MalformedCase(url: "app://Account/card?name=%ZZ", code: .malformedURL),
        MalformedCase(url: "shop://Account/card", code: .unknownScheme),
    ]
}
