#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A plugin file on disk: its resolved path, the trust check, and the private copy that lets a new build at the same
/// path be loaded beside the old one.
enum PluginFile {
    /// The file's absolute path with symbolic links resolved (the path the kernel maps, as image sources name it).
    static func resolve(_ path: String) throws(PluginError) -> String {
        guard let resolved = realpath(path, nil) else {
            throw PluginError(.fileNotFound, "expected a readable file; \(systemError())", path: path)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Refuses a file, or a directory above it, that a user other than its owner and root may write (group or world
    /// writable, or owned by another user than root and the process's user): whoever may write it may run code in
    /// the process.
    static func checkTrust(_ resolved: String, given path: String) throws(PluginError) {
        var current = resolved
        let me = getuid()
        while true {
            var info = stat()
            guard stat(current, &info) == 0 else {
                throw PluginError(
                    .fileNotFound, "expected to read the status of \(current); \(systemError())", path: path)
            }
            let what = current == resolved ? "the plugin file" : "the directory \(current), which holds it,"
            if info.st_uid != 0 && info.st_uid != me {
                throw PluginError(
                    .untrustedFile,
                    "expected \(what) to be owned by root or by this process's user (uid \(me)); it is owned by uid "
                        + "\(info.st_uid)", path: path)
            }
            let mode = info.st_mode
            let sticky = (mode & S_ISVTX) != 0 && current != resolved
            if (mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky {
                let who = (mode & S_IWOTH) != 0 ? "everyone" : "its group (gid \(info.st_gid))"
                throw PluginError(
                    .untrustedFile,
                    "expected \(what) to be writable by its owner or root only; it is writable by \(who) (mode "
                        + String(mode & 0o7777, radix: 8) + ")", path: path)
            }
            if current == "/" { return }
            current = parent(of: current)
        }
    }

    /// The path to hand to the loader: a private copy of `resolved` with a unique name, made beside it (so that
    /// `$ORIGIN` still finds its neighbours), or in the temporary directory when that folder cannot be written.
    ///
    /// Always a copy: the loader hands back a loaded image for a path or an inode it knows (an upgrade at the same
    /// path would get the old version), and a Swift plugin stays mapped for the life of the process, so a new build
    /// written over the file in place (`cp`, same inode) would change the code under the running old version. The
    /// copy's name is removed once it is mapped and scanned; the user's file is never mapped.
    static func loadablePath(for resolved: String) throws(PluginError) -> String {
        try privateCopy(of: resolved)
    }

    private static let copies = LockedValue(0)

    /// Copies `resolved` to a new file of a unique name; returns its path.
    static func privateCopy(of resolved: String) throws(PluginError) -> String {
        let number = copies.withLock { count in
            count += 1
            return count
        }
        let base = resolved.split(separator: "/").last.map(String.init) ?? "plugin.so"
        let name = ".\(base).beehive-\(getpid())-\(number)"
        let temporary = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        for directory in [parent(of: resolved), temporary] {
            let target = directory == "/" ? "/\(name)" : "\(directory)/\(name)"
            if copy(resolved, to: target) { return target }
        }
        throw PluginError(
            .notLoadable,
            "expected to copy the file to a private name (an image of this name or file is loaded, and the loader "
                + "would hand it back); \(systemError())", path: resolved)
    }

    private static func copy(_ source: String, to target: String) -> Bool {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return false }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o500)
        guard output >= 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var ok = true
        while ok {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                ok = errno == EINTR
                continue
            }
            var written = 0
            while written < count, ok {
                let n = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                if n < 0 { ok = errno == EINTR } else { written += n }
            }
        }
        ok = close(output) == 0 && ok
        if !ok { unlink(target) }
        return ok
    }

    /// The directory above `path` ("/" for a file at the root).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func systemError() -> String { String(cString: strerror(errno)) }
}
