import Dispatch
import Synchronization
import Testing

@testable import BeeHive
@testable import BeeHiveRouter

@Suite("Router: safe from any thread")
struct RouterConcurrencyTests {
    @Test("concurrent register, open, canOpen and deregister from many threads keep the table consistent")
    func concurrentRegisterAndOpen() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://shared/:id") { request in try request.parameters.int("id") }
        let iterations = 2_000
        let failures = LockedValue<[String]>([])
        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            do {
                try router.register(pattern: "app://item/\(index)/:value") { request in
                    "\(index)-\(request.parameters["value"] ?? "")"
                }
                let own = try router.open("app://item/\(index)/v") as? String
                let shared = try router.open("app://shared/\(index)") as? Int
                guard own == "\(index)-v", shared == index, router.canOpen("app://item", matching: .prefix) else {
                    failures.withLock {
                        $0.append("iteration \(index): \(String(describing: own)), \(String(describing: shared))")
                    }
                    return
                }
                if index.isMultiple(of: 2) {
                    guard router.deregister(pattern: "app://item/\(index)/:value") else {
                        failures.withLock { $0.append("iteration \(index): deregister failed") }
                        return
                    }
                }
            } catch {
                failures.withLock { $0.append("iteration \(index): \(error)") }
            }
        }
        let failed = failures.withLock { $0 }
        #expect(failed == [])
        #expect(router.routeCount == 1 + iterations / 2)
        #expect(router.canOpen("app://item/1/v"))
        #expect(!router.canOpen("app://item/2/v"))
    }

    @Test("handlers run without the router's lock held, so they can use the router themselves")
    func reentrantHandler() throws {
        let router = Router(scheme: "app")
        try router.register(pattern: "app://outer/:id") { request in
            let id = try request.parameters.string("id")
            try router.register(pattern: "app://inner/\(id)") { _ in "inner \(id)" }
            return try router.open("app://inner/\(id)")
        }
        router.setFallback { fallback in router.canOpen(fallback.url) ? "impossible" : "fallback" }
        #expect(try router.open("app://outer/1") as? String == "inner 1")
        #expect(try router.open("app://nowhere") as? String == "fallback")
    }

    @Test("concurrent opens from a task group all see their own parameters")
    func taskGroupOpens() async throws {
        let router = Router.forScheme("spec-concurrency")
        defer { Router.removeRouter(forScheme: "spec-concurrency") }
        try router.register(pattern: "echo/:value") { request in request.parameters["value"] }
        let mismatches = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<500 {
                group.addTask { try router.open("spec-concurrency://echo/\(index)") as? String == "\(index)" }
            }
            return try await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
        #expect(mismatches == 0)
    }
}
