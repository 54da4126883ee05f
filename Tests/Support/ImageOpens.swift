import Foundation

/// The image files a program opens, read by strace: tests that records are found in memory count what a program
/// opens beyond the dynamic loader's own opens.
package enum ImageOpens {
    /// Runs `program` under `strace` and returns its standard output and the opens of image files that are not the
    /// loader's: any `/proc/self/map_files/…` or `/proc/self/exe`, the program's own file (the kernel maps it; the
    /// loader never opens it), and an ELF file opened more than once (the loader opens each library once).
    ///
    /// - Parameters:
    ///   - program: The program's path.
    ///   - arguments: Its arguments.
    package static func run(_ program: String, _ arguments: [String] = []) throws -> (output: String, opens: [String]) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-strace-\(UUID()).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = try Command.run(
            "strace", ["-f", "-qq", "-e", "trace=open,openat,openat2", "-o", log, program] + arguments)
        let trace = try String(contentsOfFile: log, encoding: .utf8)
        return (output, imageOpens(in: trace, program: program))
    }

    /// The opens of image files in an strace log that are not the loader's (see `run`).
    static func imageOpens(in trace: String, program: String) -> [String] {
        let pattern = /open(?:at2?)?\((?:(?:AT_FDCWD|\d+), )?"(?<path>[^"]*)".*\) = \d+/
        var opened: [String] = []
        for line in trace.split(separator: "\n") {
            if let match = line.firstMatch(of: pattern) { opened.append(String(match.output.path)) }
        }
        let programPath = URL(fileURLWithPath: program).resolvingSymlinksInPath().path
        var elfCounts: [String: Int] = [:]
        var result: [String] = []
        for path in opened {
            if path.hasPrefix("/proc/self/map_files/") || path == "/proc/self/exe"
                || URL(fileURLWithPath: path).resolvingSymlinksInPath().path == programPath
            {
                result.append(path)
            } else if isELF(path) {
                elfCounts[path, default: 0] += 1
                if elfCounts[path] == 2 { result.append(path) }
            }
        }
        return result
    }

    private static func isELF(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data([0x7f, 0x45, 0x4c, 0x46])
    }
}
