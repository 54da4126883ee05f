import BeeHiveTestSupport
import Foundation

/// Builds Tests/MacroFixtures (the Swift-annotated binaries) once per configuration and test run.
enum MacroFixturePackage {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: [String: Result<(products: URL, log: String), Command.Failure>] =
        [:]

    static var path: URL { Command.repository.appendingPathComponent("Tests/MacroFixtures") }

    /// The folder of the built products for `configuration` (debug or release), and the build's verbose output.
    static func build(_ configuration: String) throws -> (products: URL, log: String) {
        lock.lock()
        defer { lock.unlock() }
        if let result = built[configuration] { return try result.get() }
        let scratch = path.appendingPathComponent(".build-\(configuration)")
        let result: Result<(products: URL, log: String), Command.Failure>
        do {
            // -v: the link commands, so that a test can see the linker's flags (--gc-sections in release). An
            // incremental build whose objects did not change links nothing: MacroApp is removed so that it is linked.
            try? FileManager.default.removeItem(
                at: scratch.appendingPathComponent(configuration).appendingPathComponent("MacroApp"))
            let log = try Command.run(
                "swift",
                ["build", "-v", "-c", configuration, "--package-path", path.path, "--scratch-path", scratch.path])
            result = .success((scratch.appendingPathComponent(configuration), log))
        } catch let error as Command.Failure {
            result = .failure(error)
        } catch {
            result = .failure(Command.Failure(description: "\(error)"))
        }
        built[configuration] = result
        return try result.get()
    }
}
