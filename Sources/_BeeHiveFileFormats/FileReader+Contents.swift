#if canImport(Glibc)
import Glibc

private let readBytes = Glibc.read
#elseif canImport(Musl)
import Musl

private let readBytes = Musl.read
#endif

extension FileReader {
    /// Why a file's bytes could not be had.
    package struct ReadFailure: Error, Sendable {
        /// True when the file could not be opened or read at all (no such file, no permission, a directory);
        /// false when it was read but is too large.
        package let isUnreadable: Bool
        /// What was expected and what was found, without the path.
        package let message: String
    }

    /// The bytes of the file at `path`, at most ``maximumFileSize`` of them.
    ///
    /// Opened without waiting for a writer (a FIFO) and read with a bound, so that a path to a pipe or a
    /// device such as `/dev/zero` fails rather than hangs or fills memory.
    package static func contents(ofFile path: String) throws(ReadFailure) -> [UInt8] {
        func failure(_ what: String) -> ReadFailure {
            let reason = String(cString: strerror(errno))
            return ReadFailure(
                isUnreadable: true, message: "expected a readable configuration file; cannot \(what) it: \(reason)")
        }
        func tooLarge(_ found: String) -> ReadFailure {
            ReadFailure(
                isUnreadable: false,
                message: "expected a configuration file of at most \(maximumFileSize) bytes (4 MiB); found \(found)")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw failure("open") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("examine") }
        let type = info.st_mode & S_IFMT
        guard type != S_IFDIR else {
            throw ReadFailure(isUnreadable: true, message: "expected a readable configuration file; found a directory")
        }
        let limit = maximumFileSize
        let isRegular = type == S_IFREG
        if isRegular, info.st_size > limit { throw tooLarge("\(info.st_size) bytes") }
        // Blocking reads from here on: a FIFO was opened without waiting for a writer.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(isRegular ? Int(info.st_size) + 1 : 65_536)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { readBytes(fd, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        guard bytes.count <= limit else { throw tooLarge("more than \(limit) bytes") }
        return bytes
    }
}
