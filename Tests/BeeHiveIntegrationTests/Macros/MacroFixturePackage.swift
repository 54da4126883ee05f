import BeeHiveTestSupport
import Foundation

/// Tests/MacroFixtures (the Swift-annotated binaries), built once per configuration and test run, in the scratch
/// folder Tests/Fixtures is built in (``FixtureBuild``).
enum MacroFixturePackage {
    static var path: URL { Command.repository.appendingPathComponent("Tests/MacroFixtures") }

    /// The folder of the built products for `configuration` (debug or release), and the build's manifest.
    static func build(_ configuration: String) throws -> FixtureBuild.Built {
        try FixtureBuild.build(path, configuration)
    }
}
