import Foundation
import Synchronization

/// Runs programs and builds the fixture package for tests that need real binaries (unit and integration tests).
package enum Command {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    /// The repository's root folder.
    package static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `executable` with `arguments`; returns standard output, throws with both outputs on failure.
    @discardableResult
    package static func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes to the end before waiting, so that a chatty child never blocks.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        group.enter()
        DispatchQueue.global().async {
            errorData = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let stdout = String(decoding: outputData, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(
                description:
                    "\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)\n"
                    + stdout + String(decoding: errorData, as: UTF8.self))
        }
        return stdout
    }

    /// Builds the C source `source` into the shared library `library` in `folder`, with `beehive.h` on the include
    /// path; returns the library's path.
    package static func buildCPlugin(_ source: String, named library: String, in folder: URL) throws -> String {
        let file = folder.appendingPathComponent(library + ".c")
        try Data(source.utf8).write(to: file)
        let plugin = folder.appendingPathComponent(library).path
        try run(
            "cc",
            [
                "-shared", "-fPIC", "-O1", "-I" + repository.appendingPathComponent("CSupport/CBeeHive/include").path,
                file.path, "-o", plugin,
            ])
        return plugin
    }

    /// Parses `key=value` lines.
    package static func keyValues(_ output: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return result
    }
}

/// How the test packages Tests/Fixtures and Tests/MacroFixtures are built: into one scratch folder per configuration,
/// with the same command-line flags, so that BeeHive and its dependencies are compiled once for both packages (each
/// package's own targets are all that is left to the second build).
///
/// With the macro plugin of this test build (the trait Macros), both builds pass it on the command line
/// (`-DMacros -load-plugin-executable`, and `BEEHIVE_MACRO_PLUGIN`, on which MacroFixtures drops the trait), so that
/// swift-syntax is not built again. Without it, MacroFixtures enables the trait and builds the plugin: it then gets a
/// scratch folder of its own, since its flags differ.
package enum FixtureBuild {
    /// The folder of this test binary's build products.
    package static let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent()

    /// The macro plugin of this test build.
    package static let macroPlugin = products.appendingPathComponent("_BeeHiveMacrosPlugin-tool")

    /// Whether this test build has the macros: built with the trait `Macros` (SwiftPM defines the enabled traits as
    /// compilation conditions), so that a plugin left in the build folder by an earlier build is not mistaken for one.
    package static var hasMacroPlugin: Bool {
        #if Macros
        FileManager.default.isExecutableFile(atPath: macroPlugin.path)
            && FileManager.default.fileExists(
                atPath: products.appendingPathComponent("Modules/BeeHiveMacros.swiftmodule").path)
        #else
        false
        #endif
    }

    /// The build option for the packages the tests build: no debug information. Their programs are run and their
    /// images read (notes, sections, metadata), never debugged, and DWARF costs about a fifth of the compile time.
    package static let withoutDebugInfo = ["-debug-info-format", "none"]

    /// The scratch folder for `configuration`, shared by both packages when the macro plugin is there.
    package static func scratch(of package: URL, _ configuration: String) -> URL {
        hasMacroPlugin
            ? Command.repository.appendingPathComponent("Tests/.build-fixtures-\(configuration)")
            : package.appendingPathComponent(".build-\(configuration)")
    }

    /// A scratch folder's builds in this process: one at a time (both packages share the folder, and a build's
    /// manifest, ``Built/manifest``, is read before the other package's build replaces it), each package once.
    private final class Scratch: @unchecked Sendable {
        let lock = NSLock()
        /// By package path, under `lock`.
        var built: [String: Result<Built, any Error>] = [:]
    }
    private static let scratches = Mutex<[String: Scratch]>([:])

    /// What a build left: the folder of its products, and the manifest SwiftPM ran (`<scratch>/<configuration>.yaml`,
    /// every command with its arguments).
    package struct Built: Sendable {
        package let products: URL
        package let manifest: String

        /// The arguments of the command whose output (`-o`) is the product `product`, as the manifest gives them (a
        /// JSON array of strings on one line); empty when the manifest has no such command.
        package func linkArguments(of product: String) -> [String] {
            for line in manifest.split(separator: "\n") where line.contains("args: [") && line.contains(product) {
                guard let start = line.firstIndex(of: "["),
                    let arguments = try? JSONDecoder().decode([String].self, from: Data(line[start...].utf8)),
                    let output = arguments.firstIndex(of: "-o"), output + 1 < arguments.count,
                    arguments[output + 1].hasSuffix("/\(products.lastPathComponent)/\(product)")
                else { continue }
                return arguments
            }
            return []
        }
    }

    /// Builds `package` in `configuration` once per test run (a failed build fails again without building).
    ///
    /// No `-v` to see the commands: SwiftPM passes it on to every compiler run, which changes every command of the
    /// shared scratch folder and compiles BeeHive and its dependencies again (about 90 s of CPU in release); the
    /// manifest says what ran.
    package static func build(_ package: URL, _ configuration: String) throws -> Built {
        let folder = scratch(of: package, configuration)
        let scratch = scratches.withLock { scratches in
            if let scratch = scratches[folder.path] { return scratch }
            let scratch = Scratch()
            scratches[folder.path] = scratch
            return scratch
        }
        scratch.lock.lock()
        defer { scratch.lock.unlock() }
        if let result = scratch.built[package.path] { return try result.get() }
        let result = Result { () throws -> Built in
            let macros =
                hasMacroPlugin
                ? [
                    "BEEHIVE_MACRO_PLUGIN=\(macroPlugin.path)", "swift", "build", "-Xswiftc", "-DMacros", "-Xswiftc",
                    "-load-plugin-executable", "-Xswiftc", "\(macroPlugin.path)#_BeeHiveMacrosPlugin",
                ] : ["swift", "build"]
            try Command.run(
                "env",
                macros + withoutDebugInfo
                    + ["-c", configuration, "--package-path", package.path, "--scratch-path", folder.path])
            let manifest = try String(
                contentsOf: folder.appendingPathComponent("\(configuration).yaml"), encoding: .utf8)
            return Built(products: folder.appendingPathComponent(configuration), manifest: manifest)
        }
        scratch.built[package.path] = result
        return try result.get()
    }
}

/// Tests/Fixtures, built once per configuration and test run (``FixtureBuild``).
package enum FixturePackage {
    package static var path: URL { Command.repository.appendingPathComponent("Tests/Fixtures") }

    /// The folder of the built products for `configuration` (debug or release).
    package static func products(_ configuration: String) throws -> URL {
        try FixtureBuild.build(path, configuration).products
    }

    /// The path of the built product `name` in `configuration`.
    package static func product(_ name: String, _ configuration: String) throws -> String {
        try products(configuration).appendingPathComponent(name).path
    }
}
