import BeeHiveTestSupport
import Foundation

/// Builds Tests/MacroFixtures (the Swift-annotated binaries) once per configuration and test run, in the scratch
/// folder Tests/Fixtures is built in (``FixtureBuild``).
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
        let result: Result<(products: URL, log: String), Command.Failure>
        do {
            // -v: the link commands, so that a test can see the linker's flags (--gc-sections in release). An
            // incremental build whose objects did not change links nothing: MacroApp is removed so that it is linked.
            try? FileManager.default.removeItem(
                at: FixtureBuild.scratch(of: path, configuration).appendingPathComponent("\(configuration)/MacroApp"))
            result = .success(try FixtureBuild.build(path, configuration, verbose: true))
        } catch let error as Command.Failure {
            result = .failure(error)
        } catch {
            result = .failure(Command.Failure(description: "\(error)"))
        }
        built[configuration] = result
        return try result.get()
    }
}
