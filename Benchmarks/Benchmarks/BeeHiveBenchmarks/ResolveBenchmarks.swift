import BeeHive
import Benchmark
import RegistrationKit
import Swinject

/// The service behind the singleton resolve benchmarks.
public protocol ResolveSingleton: AnyObject {}

/// A singleton implementation: one shared instance, created on first use.
public final class ResolveSingletonImpl: ResolveSingleton, ServiceImplementation {
    /// One instance serves every request.
    public static var isSingleton: Bool { true }
    /// Creates the instance.
    public init() {}
}

/// The service behind the new-instance resolve benchmarks.
public protocol ResolveTransient: AnyObject {}

/// An implementation that gives a new instance per request.
public final class ResolveTransientImpl: ResolveTransient, ServiceImplementation {
    /// Creates an instance.
    public init() {}
}

/// How many resolutions one sample makes; divide a sample by this for one resolution.
let resolvesPerSample = 1_000

/// `resolve/<library>/<kind>-x1000`: 1,000 resolutions per sample, from a registry that also holds the
/// largest compiled tier up to N = 1,000 (so the lookup tables have a realistic size).
func registerResolveBenchmarks() {
    let tier = compiledTiers.last { $0.count <= 1_000 }
    let hive = Hive()
    let container = Container()
    let singletonName = String(reflecting: ResolveSingleton.self)

    func prepare() throws {
        if let tier, hive.serviceRegistrations.isEmpty {
            try tier.registerExplicitly(hive)
            tier.registerInSwinject(container)
        }
        if !hive.hasService(ResolveSingleton.self) {
            try hive.register(service: ResolveSingleton.self, impl: ResolveSingletonImpl.self)
            try hive.register(service: ResolveTransient.self, impl: ResolveTransientImpl.self)
            container.register(ResolveSingleton.self) { _ in ResolveSingletonImpl() }.inObjectScope(.container)
            container.register(ResolveTransient.self) { _ in ResolveTransientImpl() }.inObjectScope(.transient)
        }
        // The first request creates and caches the singleton; the benchmarks measure later ones.
        let first = try hive.createService(ResolveSingleton.self)
        guard first === (try hive.createService(ResolveSingleton.self)),
            first === (try hive.createService(named: singletonName) as AnyObject),
            (try hive.createService(ResolveTransient.self)) !== (try hive.createService(ResolveTransient.self)),
            let swinjectFirst = container.resolve(ResolveSingleton.self),
            swinjectFirst === container.resolve(ResolveSingleton.self),
            let a = container.resolve(ResolveTransient.self), let b = container.resolve(ResolveTransient.self), a !== b
        else { fatalError("resolve: singleton or transient scopes do not behave as the benchmarks assume") }
    }

    Benchmark("resolve/beehive/singleton-x1000") { _ in
        for _ in 0..<resolvesPerSample { blackHole(try hive.createService(ResolveSingleton.self)) }
    } setup: {
        try prepare()
    }

    Benchmark("resolve/beehive/transient-x1000") { _ in
        for _ in 0..<resolvesPerSample { blackHole(try hive.createService(ResolveTransient.self)) }
    } setup: {
        try prepare()
    }

    Benchmark("resolve/beehive/by-name-x1000") { _ in
        for _ in 0..<resolvesPerSample { blackHole(try hive.createService(named: singletonName)) }
    } setup: {
        try prepare()
    }

    Benchmark("resolve/swinject/singleton-x1000") { _ in
        for _ in 0..<resolvesPerSample {
            guard let service = container.resolve(ResolveSingleton.self) else { fatalError("Swinject resolved nil") }
            blackHole(service)
        }
    } setup: {
        try prepare()
    }

    Benchmark("resolve/swinject/transient-x1000") { _ in
        for _ in 0..<resolvesPerSample {
            guard let service = container.resolve(ResolveTransient.self) else { fatalError("Swinject resolved nil") }
            blackHole(service)
        }
    } setup: {
        try prepare()
    }
}
