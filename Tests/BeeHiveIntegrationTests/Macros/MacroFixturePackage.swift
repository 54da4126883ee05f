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
            // With the macro plugin of this test build, swift-syntax is not built again for the fixtures (minutes in
            // release on two cores): the package drops the trait, and the macros' declarations and plugin come from
            // the command line.
            let macros =
                MacroPluginBuild.isBuilt
                ? [
                    "BEEHIVE_MACRO_PLUGIN=\(MacroPluginBuild.plugin.path)", "swift", "build", "-Xswiftc", "-DMacros",
                    "-Xswiftc", "-load-plugin-executable",
                    "-Xswiftc", "\(MacroPluginBuild.plugin.path)#_BeeHiveMacrosPlugin",
                ] : ["swift", "build"]
            let log = try Command.run(
                "env",
                macros + ["-v", "-c", configuration, "--package-path", path.path, "--scratch-path", scratch.path])
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
