import Benchmark
import Foundation

// The registration benchmarks of BeeHive (issue 3). Names are `group/subject/variant`:
//
//   register/<mechanism>/<N>     a new registry holding the N services of a tier, built one way:
//                                annotations (a), plist (b), json (c), explicit (d), swinject (e)
//   resolve/<library>/<kind>     1,000 resolutions per sample (divide by 1,000 for one)
//   scan/..., rescan/..., hive/empty   the fixed costs behind the annotation path
//   route/match/<routes>/<url>   1,000 URL matches against 1,000 or 10,000 routes (issue 5)
//
// BEEHIVE_BENCH_MODE picks the sampling: smoke (one sample, for CI), quick (default) or full.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = BenchmarkMode.current.configuration
    registerRegistrationBenchmarks()
    registerResolveBenchmarks()
    registerScanBenchmarks()
    registerRoutingBenchmarks()
}

/// How long each benchmark samples, from `BEEHIVE_BENCH_MODE`.
enum BenchmarkMode: String {
    case smoke, quick, full

    static let current: BenchmarkMode = {
        guard let text = ProcessInfo.processInfo.environment["BEEHIVE_BENCH_MODE"], !text.isEmpty else { return .quick }
        guard let mode = BenchmarkMode(rawValue: text) else {
            fatalError("BEEHIVE_BENCH_MODE: expected smoke, quick or full; found \"\(text)\"")
        }
        return mode
    }()

    var configuration: Benchmark.Configuration {
        let metrics: [BenchmarkMetric] = [.wallClock, .instructions, .mallocCountTotal]
        // Exact counts in the exports (package-benchmark would otherwise round large counts to K or M).
        let units: [BenchmarkMetric: BenchmarkUnits] = [.mallocCountTotal: .count, .instructions: .count]
        switch self {
        case .smoke:
            return .init(
                metrics: metrics, timeUnits: .nanoseconds, units: units, warmupIterations: 0,
                maxDuration: .seconds(1), maxIterations: 1)
        case .quick:
            return .init(
                metrics: metrics, timeUnits: .nanoseconds, units: units, warmupIterations: 2,
                maxDuration: .milliseconds(1500), maxIterations: 300)
        case .full:
            return .init(
                metrics: metrics, timeUnits: .nanoseconds, units: units, warmupIterations: 5,
                maxDuration: .seconds(4), maxIterations: 2000)
        }
    }
}
