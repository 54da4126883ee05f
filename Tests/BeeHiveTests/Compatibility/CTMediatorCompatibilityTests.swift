import Synchronization
import Testing

@testable import BeeHive
@testable import BeeHiveMediator
@testable import BeeHiveRouter

/// Counts `Target_A` instances, to tell a cached target from a fresh one.
private let targetAInstances = Atomic<Int>(0)

/// A target that marks a `native…` action `.remote`, which CTMediator's URL calls would never reach.
private struct Target_B: MediatorTarget {
    static var actions: [MediatorAction<Target_B>] {
        [.remote("nativeOpen") { _, _ in "opened" }]
    }
}

/// CTMediator's demo target `Target_A`: `Action_nativeFetchDetailViewController:`, no `notFound:`.
private final class CompatTargetA: MediatorTarget {
    let serial: Int
    init() { serial = targetAInstances.add(1, ordering: .relaxed).newValue }

    static var actions: [MediatorAction<CompatTargetA>] {
        [
            .local("nativeFetchDetailViewController") { target, request in
                "detail \(try request.parameters.string("key")) from #\(target.serial)"
            },
            .remote("showAlert") { _, request in "alert \(try request.parameters.string("message"))" },
        ]
    }
}

/// A target with CTMediator's `notFound:` action.
private struct CompatTargetB: MediatorTarget {
    static var actions: [MediatorAction<CompatTargetB>] {
        [.notFound { _, request in "B has no \(request.action)" }]
    }
}

/// The KT mediator's module entry `KTModuleHandlerForA`, whose `handleAction:params:` switches on the action.
private struct KTModuleHandlerForA: MediatorTarget {
    static var actions: [MediatorAction<KTModuleHandlerForA>] {
        [
            .remote("getUserViewController") { _, request in
                "user \(try request.parameters.string("userName")) \(try request.parameters.int("age"))"
            }
        ]
    }
}

/// CTMediator's README and demo, and the KT mediator's redirects (seed 002), written against `Mediator`.
@Suite("Compatibility: CTMediator and the KT mediator's redirects")
struct CTMediatorCompatibilityTests {
    private func makeMediator() -> Mediator {
        Mediator(
            scheme: "aaa",
            targets: [
                "Target_A": CompatTargetA.self, "Target_B": CompatTargetB.self,
                "KTModuleHandlerForA": KTModuleHandlerForA.self,
            ])
    }

    @Test("performTarget:action:params:shouldCacheTarget: finds Target_A for 'A' and calls the action")
    func performTarget() throws {
        let mediator = makeMediator()
        let result = try mediator.perform(target: "A", action: "nativeFetchDetailViewController", params: ["key": "v"])
        #expect((result as? String)?.hasPrefix("detail v") == true)
    }

    @Test("a cached target asked for an action it lacks, with no notFound action, is dropped from the cache")
    func missingActionDropsCachedTarget() throws {
        let mediator = makeMediator()
        let first = try mediator.perform(
            target: "A", action: "nativeFetchDetailViewController", params: ["key": "1"], cacheTarget: true)
        #expect(mediator.isTargetCached(named: "A"))
        let error = #expect(throws: MediatorError.self) { try mediator.perform(target: "A", action: "nope") }
        #expect(error?.code == .actionNotFound)
        #expect(!mediator.isTargetCached(named: "A"))
        // The next call makes a fresh instance.
        let second = try mediator.perform(target: "A", action: "nativeFetchDetailViewController", params: ["key": "1"])
        #expect((first as? String) != (second as? String))
    }

    @Test("a target with notFound: handles unknown actions and stays cached")
    func notFoundActionKeepsCache() throws {
        let mediator = makeMediator()
        #expect(
            try mediator.perform(target: "B", action: "anything", cacheTarget: true) as? String == "B has no anything")
        #expect(try mediator.perform(target: "B", action: "other") as? String == "B has no other")
        #expect(mediator.isTargetCached(named: "B"))
    }

    @Test("releaseCachedTargetWithFullTargetName: drops a cached target")
    func releaseCachedTarget() throws {
        let mediator = makeMediator()
        _ = try mediator.perform(
            target: "A", action: "nativeFetchDetailViewController", params: ["key": "1"], cacheTarget: true)
        #expect(mediator.releaseCachedTarget(named: "Target_A"))
        #expect(!mediator.isTargetCached(named: "A"))
    }

    @Test("performActionWithUrl: aaa://targetA/actionB?key=value; remote URLs reach only remote actions")
    func performActionWithURL() throws {
        let mediator = makeMediator()
        #expect(try mediator.perform(url: "aaa://A/showAlert?message=hi", origin: .local) as? String == "alert hi")
        #expect(try mediator.handleRemoteURL("aaa://A/showAlert?message=hi") as? String == "alert hi")
        // CTMediator refuses remote calls to actions whose name starts with 'native', and so does this mediator;
        // besides, remote calls reach only actions declared .remote.
        let refused = #expect(throws: MediatorError.self) {
            try mediator.handleRemoteURL("aaa://A/nativeFetchDetailViewController?key=1")
        }
        #expect(refused?.code == .remoteCallRefused)
        #expect(refused?.message.contains("found 'nativeFetchDetailViewController'") == true)
    }

    @Test("performActionWithUrl: an action named native… is refused remotely even when declared .remote")
    func nativePrefixWinsOverRemoteMark() throws {
        let mediator = Mediator(scheme: "aaa", targets: ["Target_B": Target_B.self])
        #expect(Target_B.actions.first?.isRemoteCallable == false, "the declaration says what holds")
        let refused = #expect(throws: MediatorError.self) { try mediator.handleRemoteURL("aaa://B/nativeOpen") }
        #expect(refused?.code == .remoteCallRefused)
        #expect(refused?.message.contains("local-only, as in CTMediator, even when declared .remote") == true)
        #expect(try mediator.perform(target: "B", action: "nativeOpen") as? String == "opened")
    }

    @Test("KT: a redirect table rewrites AAAA/BBBB to AAAA/DDDD before the target and action are read")
    func ktRedirect() throws {
        let mediator = makeMediator()
        // KT's redirectionjson {"KTOld/getUser": "KTModuleHandlerForA/getUserViewController"}, as a rule.
        let table = try RedirectTable(
            json: Array(
                #"{"version":1,"redirects":[{"from":"aaa://KTOld/getUser","to":"aaa://KTModuleHandlerForA/getUserViewController"}]}"#
                    .utf8))
        mediator.setRedirects(table)
        let result = try mediator.perform(url: "aaa://KTOld/getUser?userName=kirito&age=18", origin: .remote)
        #expect(result as? String == "user kirito 18")
    }

    @Test("KT: an unknown route falls back to a web page (webUrlSet) through the not-found handler")
    func ktWebFallback() throws {
        let mediator = makeMediator()
        mediator.setNotFoundHandler { request, _ in "https://m.example.com/\(request.targetName)/\(request.action)" }
        #expect(
            try mediator.perform(url: "aaa://Missing/page", origin: .remote) as? String
                == "https://m.example.com/Missing/page")
    }
}
