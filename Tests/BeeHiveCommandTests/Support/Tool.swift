import Foundation

/// Runs programs, the built `beehive` tool among them, with a guard against hangs.
enum Tool {
    /// What a finished program printed and how it exited.
    struct Output: Sendable, CustomStringConvertible {
        /// The exit status.
        var status: Int32
        /// Standard output.
        var stdout: String
        /// Standard error.
        var stderr: String
        /// How long the program ran, in seconds.
        var seconds: Double

        var description: String { "exit status \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// A failure to run a program at all, or a program that failed where it must not.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The repository's root folder.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built `beehive` tool: next to the test bundle (`swift test` builds every product), or else built
    /// into a scratch folder of its own.
    static let executable: Result<String, Failure> = {
        let candidates = [CommandLine.arguments.first, Bundle.main.executablePath].compactMap { $0 }.map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("beehive").path
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            return .success(found)
        }
        let scratch = repository.appendingPathComponent(".build-command-tests").path
        do {
            let build = try run(
                "swift",
                ["build", "--product", "beehive", "--package-path", repository.path, "--scratch-path", scratch],
                timeout: 1800)
            guard build.status == 0 else { return .failure(Failure(description: "swift build failed: \(build)")) }
            let binPath = try run(
                "swift", ["build", "--show-bin-path", "--package-path", repository.path, "--scratch-path", scratch])
            return .success(binPath.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/beehive")
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }()

    /// Runs `beehive` with `arguments`.
    static func beehive(_ arguments: [String], as user: String? = nil) throws -> Output {
        let tool = try executable.get()
        if let user {
            return try run("setpriv", ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", tool] + arguments)
        }
        return try run(tool, arguments)
    }

    /// Runs `beehive` and decodes its JSON output.
    static func inspectJSON(_ files: [String]) throws -> (InspectionJSON, Output) {
        let output = try beehive(["inspect", "--format", "json"] + files)
        do {
            return (try JSONDecoder().decode(InspectionJSON.self, from: Data(output.stdout.utf8)), output)
        } catch {
            throw Failure(description: "the JSON does not decode (\(error)):\n\(output)")
        }
    }

    /// Runs `program` (a path, or a name looked up in PATH) and waits for it; kills it after `timeout` seconds.
    static func run(
        _ program: String, _ arguments: [String], in directory: URL? = nil, timeout: Double = 120
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let start = Date()
        try process.run()
        // Read both pipes to the end before waiting, so that a chatty child never blocks.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        group.enter()
        DispatchQueue.global().async {
            errorData = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        nonisolated(unsafe) var outputData = Data()
        group.enter()
        DispatchQueue.global().async {
            outputData = output.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            process.waitUntilExit()
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) hung: killed after \(timeout) s")
        }
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self), seconds: Date().timeIntervalSince(start))
    }

    /// Runs `program` and requires exit status 0.
    @discardableResult
    static func succeed(_ program: String, _ arguments: [String], in directory: URL? = nil) throws -> String {
        let output = try run(program, arguments, in: directory, timeout: 900)
        guard output.status == 0 else {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed: \(output)")
        }
        return output.stdout
    }
}
