import Foundation

/// Builds Tests/Fixtures (real Swift programs with records, and plugins) once per configuration and test run.
///
/// The same scratch folders as BeeHiveTests' builds of the package, so a run of both builds it once.
enum FixturePackage {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: [String: Result<URL, Tool.Failure>] = [:]

    /// The fixture package's folder.
    static var path: URL { Tool.repository.appendingPathComponent("Tests/Fixtures") }

    /// The folder of the built products for `configuration` (debug or release).
    static func products(_ configuration: String) throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        if let result = built[configuration] { return try result.get() }
        let scratch = path.appendingPathComponent(".build-\(configuration)")
        let result: Result<URL, Tool.Failure>
        do {
            try Tool.succeed(
                "swift", ["build", "-c", configuration, "--package-path", path.path, "--scratch-path", scratch.path])
            result = .success(scratch.appendingPathComponent(configuration))
        } catch let error as Tool.Failure {
            result = .failure(error)
        } catch {
            result = .failure(Tool.Failure(description: "\(error)"))
        }
        built[configuration] = result
        return try result.get()
    }

    /// The path of a built product.
    static func product(_ name: String, _ configuration: String) throws -> String {
        try products(configuration).appendingPathComponent(name).path
    }
}
