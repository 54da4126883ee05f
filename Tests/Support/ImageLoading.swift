import Synchronization

/// Held by tests that load images into the test process and by tests that need the set of loaded images to stay
/// put while they measure: Swift Testing runs suites in parallel, those of every test target in one process.
package let imageLoading = Mutex<Void>(())
