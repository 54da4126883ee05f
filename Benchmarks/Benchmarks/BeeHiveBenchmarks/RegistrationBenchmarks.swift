import BeeHive
import Benchmark
import RegistrationKit
import Swinject

/// `register/<mechanism>/<N>`: one sample builds a new registry holding the tier's N services (`register/floor/<N>`:
/// the tier's existing name strings inserted into a reserved dictionary, the lower bound of any registry).
///
/// The registry is built inside the measurement and counted after it; a mechanism that registered a
/// number of services other than N fails the benchmark: package-benchmark reports the problem instead of
/// a time, and `swift package benchmark` exits non-zero (see ``fail(_:_:)``). The registry is
/// released after the measurement too, so teardown is not counted for any mechanism.
func registerRegistrationBenchmarks() {
    for tier in compiledTiers {
        for mechanism in Mechanism.allCases {
            let name = "register/\(mechanism.rawValue)/\(tier.count)"
            Benchmark(name) { benchmark in
                let registered: Int
                switch mechanism {
                case .floor:
                    // The tier's names exist before the sample (`expectedPairs` is built with the tier).
                    let table = buildFloor(tier.expectedPairs)
                    blackHole(table)
                    benchmark.stopMeasurement()
                    registered = table.count
                case .swinject:
                    let container = Container()
                    tier.registerInSwinject(container)
                    blackHole(container)
                    benchmark.stopMeasurement()
                    registered = tier.swinjectResolvedCount(container)
                default:
                    let hive = buildHive(mechanism, tier)
                    blackHole(hive)
                    benchmark.stopMeasurement()
                    registered = hive.serviceRegistrations.count
                }
                if let problem = countProblem(registered, of: tier, name) { fail(benchmark, problem) }
            } setup: {
                try verifySameSet(mechanism, tier, name)
            } teardown: {
                stopIfFailed()
            }
        }
    }
}

/// The problem of a failed sample, for the teardown hook.
nonisolated(unsafe) var failedSample: String?

/// Fails a benchmark: no further samples, no time reported, and the teardown hook stops the process
/// with the problem, so that `swift package benchmark` fails (`benchmark.error` alone exits 0) and says
/// why (samples run with standard error redirected to /dev/null; teardown runs after it is restored).
func fail(_ benchmark: Benchmark, _ problem: String) {
    benchmark.error(problem)
    failedSample = problem
}

/// The teardown hook of the registration benchmarks: stops the process if a sample failed.
func stopIfFailed() {
    if let failedSample { fatalError(failedSample) }
}
