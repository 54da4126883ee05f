import BeeHiveTestSupport
import Foundation

/// Builds Tests/MacroFixtures (the Swift-annotated binaries) once per configuration and test run, in the scratch
/// folder Tests/Fixtures is built in (``FixtureBuild``).
enum MacroFixturePackage {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: [String: Result<FixtureBuild.Built, Command.Failure>] = [:]

    static var path: URL { Command.repository.appendingPathComponent("Tests/MacroFixtures") }

    /// The folder of the built products for `configuration` (debug or release), and the build's manifest.
    static func build(_ configuration: String) throws -> FixtureBuild.Built {
        lock.lock()
        defer { lock.unlock() }
        if let result = built[configuration] { return try result.get() }
        let result: Result<FixtureBuild.Built, Command.Failure>
        do {
            result = .success(try FixtureBuild.build(path, configuration))
        } catch let error as Command.Failure {
            result = .failure(error)
        } catch {
            result = .failure(Command.Failure(description: "\(error)"))
        }
        built[configuration] = result
        return try result.get()
    }
}
