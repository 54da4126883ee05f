import Dispatch
import Synchronization
import Testing

@testable import BeeHive
@testable import BeeHiveMediator

/// Counts instances so that tests can tell a cached target from a fresh one.
private let userTargetInstances = Atomic<Int>(0)

private final class SpecUserTarget: MediatorTarget {
    let serial: Int

    init() {
        serial = userTargetInstances.add(1, ordering: .relaxed).newValue
    }

    static var actions: [MediatorAction<SpecUserTarget>] {
        [
            .local("profile") { _, request in "profile \(try request.parameters.int("id"))" },
            .local("serial") { target, _ in target.serial },
            .remote("card") { _, request in "card \(try request.parameters.int("id"))" },
            .local("nativeDelete") { _, _ in "deleted" },
            .local("greet", SpecUserTarget.greet),
            .notFound { _, request in "user target has no \(request.action)" },
        ]
    }

    func greet(_ request: MediatorRequest) throws -> Any? {
        "hello \(try request.parameters.string("name"))"
    }
}

/// A target without a not-found action, reachable only as `Target_Bare`.
private struct BareTarget: MediatorTarget {
    static var actions: [MediatorAction<BareTarget>] {
        [.local("ping") { _, _ in "pong" }]
    }
}

/// A target whose not-found action also takes remote calls.
private struct OpenTarget: MediatorTarget {
    static var actions: [MediatorAction<OpenTarget>] {
        [.notFound(remoteCallable: true) { _, request in "open target: \(request.action)" }]
    }
}

private struct DuplicateTarget: MediatorTarget {
    static var actions: [MediatorAction<DuplicateTarget>] {
        [.local("same") { _, _ in 1 }, .remote("same") { _, _ in 2 }]
    }
}

/// A type that has a target's name but is not a target: lookups must skip it.
private struct NotATargetUser {}

private func makeMediator(scheme: String? = nil) -> Mediator {
    let types: [String: Any.Type] = [
        "User": NotATargetUser.self,
        "Target_User": SpecUserTarget.self,
        "Target_Bare": BareTarget.self,
        "Shop.Target_Open": OpenTarget.self,
        "Target_Duplicate": DuplicateTarget.self,
    ]
    return Mediator(scheme: scheme) { name in types[name] }
}

@Suite("Mediator: calling target actions by name")
struct MediatorTests {
    @Test("finds a target by its short name, its Target_ name, or a module-qualified name")
    func lookup() throws {
        let mediator = makeMediator()
        #expect(try mediator.perform(target: "User", action: "profile", params: ["id": 7]) as? String == "profile 7")
        #expect(
            try mediator.perform(target: "Target_User", action: "profile", params: ["id": "8"]) as? String
                == "profile 8")
        #expect(try mediator.perform(target: "Shop.Open", action: "x") as? String == "open target: x")
        #expect(mediator.hasTarget(named: "User"))
        #expect(mediator.hasTarget(named: "Bare"))
        #expect(!mediator.hasTarget(named: "Ghost"))
        #expect(Mediator.candidateNames(for: "App.User") == ["App.User", "App.Target_User"])
        #expect(Mediator.candidateNames(for: "Target_User") == ["Target_User"])
    }

    @Test("a declared call returns its typed result; a wrong declared type is a typeMismatch naming both types")
    func typedCalls() throws {
        let mediator = makeMediator()
        let profile = MediatorCall<String>(target: "User", action: "profile")
        let serial = MediatorCall<Int>(target: "User", action: "serial")
        let wrong = MediatorCall<Int>(target: "User", action: "profile")
        let text: String = try mediator.perform(profile, params: ["id": 3])
        #expect(text == "profile 3")
        #expect(try mediator.perform(serial) > 0)
        #expect(profile.description == "User.profile -> String")
        let error = #expect(throws: MediatorError.self) { try mediator.perform(wrong, params: ["id": 3]) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.message.contains("Int") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("String") == true, "\(error?.message ?? "")")
    }

    @Test("actions can be methods, and parameters are read with types")
    func methodsAndTypedParameters() throws {
        let mediator = makeMediator()
        #expect(
            try mediator.perform(target: "User", action: "greet", params: ["name": "Bee"], as: String.self)
                == "hello Bee")
        let missing = #expect(throws: MediatorError.self) { try mediator.perform(target: "User", action: "greet") }
        #expect(missing?.code == .missingParameter)
        #expect(missing?.message.contains("parameter 'name' of target 'User', action 'greet'") == true)
        let invalid = #expect(throws: MediatorError.self) {
            try mediator.perform(target: "User", action: "profile", params: ["id": 2.5])
        }
        #expect(invalid?.code == .invalidParameter)
        #expect(invalid?.message.contains("expected Int, found Double 2.5") == true)
        let wrongType = #expect(throws: MediatorError.self) {
            try mediator.perform(target: "User", action: "serial", as: String.self)
        }
        #expect(wrongType?.code == .typeMismatch)
    }

    @Test(
        "the not-found chain: target's notFound action, then the handler, then an error",
        arguments: MediatorTests.notFoundCases)
    func notFoundChain(_ row: NotFoundCase) throws {
        let mediator = makeMediator()
        if row.withHandler {
            mediator.setNotFoundHandler { request, error in
                "handler: \(error.code) \(request.targetName)/\(request.action)"
            }
        }
        if let result = row.result {
            #expect(try mediator.perform(target: row.target, action: row.action) as? String == result)
        } else {
            let error = #expect(throws: MediatorError.self) {
                try mediator.perform(target: row.target, action: row.action)
            }
            #expect(error?.code == row.code)
            #expect(error?.message.contains(row.target) == true)
        }
    }

    @Test("error messages list what was tried and what exists")
    func notFoundMessages() {
        let mediator = makeMediator()
        let target = #expect(throws: MediatorError.self) { try mediator.perform(target: "Ghost", action: "a") }
        #expect(target?.message.contains("named 'Ghost', 'Target_Ghost', found none") == true)
        let action = #expect(throws: MediatorError.self) { try mediator.perform(target: "Bare", action: "a") }
        #expect(action?.message.contains("target 'Target_Bare' named 'a', found none (actions: ping)") == true)
    }

    @Test("two actions with one name are reported, not silently replaced")
    func duplicateActions() {
        let mediator = makeMediator()
        let error = #expect(throws: MediatorError.self) { try mediator.perform(target: "Duplicate", action: "same") }
        #expect(error?.code == .duplicateAction)
        #expect(error?.message.contains("'same' declared twice") == true)
    }

    @Test("cacheTarget keeps one instance until it is released")
    func caching() throws {
        let mediator = makeMediator()
        let fresh1 = try mediator.perform(target: "User", action: "serial", as: Int.self)
        let fresh2 = try mediator.perform(target: "User", action: "serial", as: Int.self)
        #expect(fresh1 != fresh2)
        #expect(!mediator.isTargetCached(named: "User"))

        let cached1 = try mediator.perform(target: "User", action: "serial", cacheTarget: true, as: Int.self)
        let cached2 = try mediator.perform(target: "User", action: "serial", as: Int.self)
        let cached3 = try mediator.perform(target: "Target_User", action: "serial", cacheTarget: true, as: Int.self)
        #expect(cached1 == cached2 && cached2 == cached3)
        #expect(mediator.isTargetCached(named: "User"))
        #expect(mediator.isTargetCached(named: "Target_User"))

        #expect(mediator.releaseCachedTarget(named: "User"))
        #expect(!mediator.releaseCachedTarget(named: "Target_User"))
        #expect(!mediator.isTargetCached(named: "User"))
        #expect(try mediator.perform(target: "User", action: "serial", as: Int.self) != cached1)

        _ = try mediator.perform(target: "Bare", action: "ping", cacheTarget: true)
        mediator.releaseAllCachedTargets()
        #expect(!mediator.isTargetCached(named: "Bare"))
    }

    @Test("concurrent cached calls from many threads all end up sharing one instance")
    func concurrentCaching() {
        let mediator = makeMediator()
        let serials = LockedValue<Set<Int>>([])
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 1_000) { _ in
            do {
                let serial = try mediator.perform(target: "User", action: "serial", cacheTarget: true, as: Int.self)
                serials.withLock { _ = $0.insert(serial) }
            } catch {
                failures.add(1, ordering: .relaxed)
            }
        }
        let failed = failures.load(ordering: .relaxed)
        let distinct = serials.withLock { $0.count }
        #expect(failed == 0)
        #expect(distinct == 1)
    }

    @Test("handlers and actions run without the mediator's lock held")
    func reentrantActions() throws {
        let mediator = makeMediator()
        mediator.setNotFoundHandler { request, _ in
            _ = mediator.releaseCachedTarget(named: "User")
            return try mediator.perform(target: "User", action: "profile", params: ["id": 1], cacheTarget: true)
        }
        #expect(try mediator.perform(target: "Ghost", action: "x") as? String == "profile 1")
        #expect(mediator.isTargetCached(named: "User"))
    }
}

extension MediatorTests {
    struct NotFoundCase: Sendable, CustomTestStringConvertible {
        var name: String
        var target: String
        var action: String
        var withHandler: Bool
        var result: String?
        var code: MediatorError.Code?
        var testDescription: String { name }
    }

    static let notFoundCases: [NotFoundCase] = [
        NotFoundCase(
            name: "missing action → the target's notFound action", target: "User", action: "missing",
            withHandler: true, result: "user target has no missing"),
        NotFoundCase(
            name: "missing action, no notFound action → the mediator's handler", target: "Bare",
            action: "missing", withHandler: true, result: "handler: actionNotFound Bare/missing"),
        NotFoundCase(
            name: "missing action, nothing else → actionNotFound", target: "Bare", action: "missing",
            withHandler: false, code: .actionNotFound),
        NotFoundCase(
            name: "missing target → the mediator's handler", target: "Ghost", action: "any",
            withHandler: true, result: "handler: targetNotFound Ghost/any"),
        NotFoundCase(
            name: "missing target, no handler → targetNotFound", target: "Ghost", action: "any",
            withHandler: false, code: .targetNotFound),
    ]
}
