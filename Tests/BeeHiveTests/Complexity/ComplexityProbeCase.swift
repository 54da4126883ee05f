import BeeHiveCallgrindRequests
import Foundation
import XCTest

/// The child process of ``ComplexityTests``: runs the workloads under callgrind.
///
/// An XCTest case, not a Swift Testing test, on purpose: Swift Testing's entry point parks the main thread in
/// `dispatchMain()`, where valgrind 3.19 crashes ("the 'impossible' happened"); XCTest's runs on the main thread
/// and returns. It does nothing unless `BEEHIVE_COMPLEXITY_PROBE` names the folder of inputs and
/// `BEEHIVE_COMPLEXITY_RUNS` the workloads (separated by commas); after each, it asks callgrind for a dump labelled
/// with the workload's name.
final class ComplexityProbeCase: XCTestCase {
    func testRunWorkloads() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let folder = environment["BEEHIVE_COMPLEXITY_PROBE"], let runs = environment["BEEHIVE_COMPLEXITY_RUNS"]
        else { return }
        for run in runs.split(separator: ",").map(String.init) {
            try ComplexityProbe.runWorkload(run, folder: folder)
            beehive_callgrind_dump(run)
        }
    }
}
