#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes one line to standard error, prefixed with the tool's name: `beehive: <line>`.
func printError(_ line: String) {
    writeStandardError("beehive: \(line)\n")
}

/// Writes `text` to standard error (file descriptor 2, unbuffered), all of it.
func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        bytes = bytes.dropFirst(written)
    }
}
