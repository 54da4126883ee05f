import Foundation

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

/// Builds Tests/Fixtures once per configuration and test run, one build at a time.
package enum FixturePackage {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: [String: Result<URL, Command.Failure>] = [:]

    package static var path: URL { Command.repository.appendingPathComponent("Tests/Fixtures") }

    /// The folder of the built products for `configuration` (debug or release).
    package static func products(_ configuration: String) throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        if let result = built[configuration] { return try result.get() }
        let scratch = path.appendingPathComponent(".build-\(configuration)")
        let result: Result<URL, Command.Failure>
        do {
            try Command.run(
                "swift", ["build", "-c", configuration, "--package-path", path.path, "--scratch-path", scratch.path])
            result = .success(scratch.appendingPathComponent(configuration))
        } catch let error as Command.Failure {
            result = .failure(error)
        } catch {
            result = .failure(Command.Failure(description: "\(error)"))
        }
        built[configuration] = result
        return try result.get()
    }
}
