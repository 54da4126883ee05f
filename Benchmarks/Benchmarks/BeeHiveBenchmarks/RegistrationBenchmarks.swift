import Benchmark
import BeeHive
import RegistrationKit
import Swinject

/// `register/<mechanism>/<N>`: one sample builds a new registry holding the tier's N services.
///
/// The registry is built inside the measurement and counted after it; a mechanism that registered a
/// number of services other than N stops the run with `fatalError` instead of reporting a time. The
/// registry is released after the measurement too, so teardown is not counted for any mechanism.
func registerRegistrationBenchmarks() {
    for tier in compiledTiers {
        for mechanism in Mechanism.allCases {
            let name = "register/\(mechanism.rawValue)/\(tier.count)"
            Benchmark(name) { benchmark in
                switch mechanism {
                case .swinject:
                    let container = Container()
                    tier.registerInSwinject(container)
                    blackHole(container)
                    benchmark.stopMeasurement()
                    requireCount(tier.swinjectResolvedCount(container), of: tier, name)
                default:
                    let hive = buildHive(mechanism, tier)
                    blackHole(hive)
                    benchmark.stopMeasurement()
                    requireCount(hive.serviceRegistrations.count, of: tier, name)
                }
            } setup: {
                try verifySameSet(mechanism, tier, name)
            }
        }
    }
}

