internal import _BeeHiveRuntime
internal import _BeeHiveScanner

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

    /// Refuses, before anything is copied or loaded, a file that is no shared library for this machine, one that the
    /// process has loaded already (by path, by file, or by build-id; the main program included), and one that declares
    /// no records. The file is read with libelf, loaded on demand; without libelf (`libelf1` not installed) only the
    /// path and the file are compared here, and the loader and the scan find the rest after loading.
    /// - Returns: The paths of the images loaded now (``loadedImagePaths(_:)``), from the same walk of the loader's
    ///   list: whatever else defines a plugin's protocol comes with it.
    static func checkBeforeLoading(_ resolved: String, given path: String) throws(PluginError) -> Set<String> {
        var file = bh_plugin_file()
        let status = bh_plugin_file_read(resolved, &file)
        let found = withUnsafeBytes(of: file.found) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let expected = "expected a shared library (ELF, ET_DYN, no program interpreter) for this machine"
        switch bh_plugin_file_status(UInt32(status)) {
        case BH_PLUGIN_FILE_UNREADABLE:
            throw PluginError(.fileNotFound, "expected a readable file; \(found)", path: path)
        case BH_PLUGIN_FILE_NOT_ELF:
            throw PluginError(.notASharedLibrary, "\(expected); found \(found)", path: path)
        default: break
        }
        var images: UnsafeMutablePointer<bh_loaded_image>?
        let count = bh_loaded_images(&images)
        defer { bh_loaded_images_free(images, count) }
        let loadedImages = UnsafeBufferPointer(start: images, count: count)
        let hostImages = loadedImagePaths(loadedImages)
        if let loaded = loadedImage(matching: file, in: loadedImages, resolved: resolved, readBuildID: status == 0) {
            throw PluginError(
                .alreadyLoaded,
                "expected a library this process has not loaded; it is loaded already as \(loaded), and a second "
                    + "copy would put its types beside the ones the host and its plugins use (a protocol defined "
                    + "twice conforms nowhere). A library the host links, such as the protocols' package, is shared "
                    + "with the plugins, never loaded as one; a new build of a plugin joins with upgrade", path: path)
        }
        guard status == 0 else { return hostImages }  // without libelf, the loader and the scan tell the rest
        if file.has_interpreter != 0 {
            throw PluginError(
                .notASharedLibrary,
                "\(expected); found a program (it names an interpreter): build the plugin as a library "
                    + "(`.library(type: .dynamic)`, or `-shared`)", path: path)
        }
        if file.elf_type != UInt32(ET_DYN) || file.machine_matches == 0 {
            let what =
                file.elf_type == UInt32(ET_REL)
                ? "a relocatable object (link it with -shared)"
                : file.elf_type == UInt32(ET_EXEC)
                    ? "a program linked at a fixed address"
                    : file.machine_matches == 0
                        ? "an ELF file for another machine (e_machine \(file.machine))"
                        : "an ELF file of type \(file.elf_type)"
            throw PluginError(.notASharedLibrary, "\(expected); found \(what)", path: path)
        }
        if file.has_beehive_note == 0 && file.has_swift_records == 0 {
            throw PluginError(
                .noRecords,
                "expected a plugin that declares services, modules or routes (a BeeHive note naming its record "
                    + "sections, or the Swift macros' records); found neither in the file. Annotate its types "
                    + "(BH_SERVICE, @BeeHiveService) and link it with BeeHiveDynamic", path: path)
        }
        return hostImages
    }

    /// The loaded image (described for a message) that is the file `file` at `resolved`, if any: the same path, the
    /// same device and inode, or the same GNU build-id. Plugins' private copies do not count: a new build of a
    /// plugin, or the same build again, may join while an older one stays mapped.
    private static func loadedImage(
        matching file: bh_plugin_file, in images: UnsafeBufferPointer<bh_loaded_image>, resolved: String,
        readBuildID: Bool
    ) -> String? {
        var file = file
        let buildID = withUnsafeBytes(of: &file.build_id) { Array($0.prefix(file.build_id_size)) }
        for image in images {
            guard let name = image.path.map({ String(cString: $0) }), !isPrivateCopy(name) else { continue }
            let what = image.is_main != 0 ? "the main program \(name)" : name
            if name == resolved { return "\(what) (the same path)" }
            var info = stat()
            if stat(name, &info) == 0, UInt64(info.st_dev) == file.device, UInt64(info.st_ino) == file.inode {
                return "\(what) (the same file: device \(file.device), inode \(file.inode))"
            }
            var image = image
            let loadedID = withUnsafeBytes(of: &image.build_id) { Array($0.prefix(image.build_id_size)) }
            if readBuildID, !buildID.isEmpty, loadedID == buildID {
                let hex = buildID.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined()
                return "\(what) (the same build-id, \(hex))"
            }
        }
        return nil
    }

    /// The paths of `images`, as the loader names them (the main program by the name `dladdr` gives it, as type
    /// look-ups report it, and by its file's path).
    private static func loadedImagePaths(_ images: UnsafeBufferPointer<bh_loaded_image>) -> Set<String> {
        var paths = Set(images.compactMap { $0.path.map { String(cString: $0) } })
        if let main = bh_image_path(bh_main_program_address()) { paths.insert(String(cString: main)) }
        return paths
    }

    /// Whether an image's path is one of this process's private copies of plugins.
    static func isPrivateCopy(_ path: String) -> Bool {
        path.split(separator: "/").last.map { $0.hasPrefix(".") && $0.contains(".beehive-\(getpid())-") } ?? false
    }

    /// The path to hand to the loader: a private copy of `resolved` with a unique name, made in `directory`, or in this
    /// process's copy directory (``copyDirectory()``) when nil.
    ///
    /// Always a copy: the loader hands back a loaded image for a path or an inode it knows (an upgrade at the same
    /// path would get the old version), and a Swift plugin stays mapped for the life of the process, so a new build
    /// written over the file in place (`cp`, same inode) would change the code under the running old version. The
    /// copy's name is removed once it is mapped and scanned, or refused; the user's file is never mapped, and its
    /// folder is never written.
    static func loadablePath(for resolved: String, in directory: String?) throws(PluginError) -> String {
        let folder: String
        if let directory {
            folder = directory
        } else {
            folder = try copyDirectory(for: resolved)
        }
        let number = copies.withLock { count in
            count += 1
            return count
        }
        let base = resolved.split(separator: "/").last.map(String.init) ?? "plugin.so"
        let target = "\(folder == "/" ? "" : folder)/.\(base).beehive-\(getpid())-\(number)"
        guard copy(resolved, to: target) else {
            throw PluginError(
                .notLoadable,
                "expected to copy the file to the private name \(target) (the loader would hand back an image of a "
                    + "known path or file); \(systemError())", path: resolved)
        }
        return target
    }

    private static let copies = LockedValue(0)

    /// This process's directory of private copies: `beehive-plugins-PID-XXXXXX` in `$TMPDIR` (or `/tmp`), made when
    /// first needed and removed, with anything left in it, when the process exits normally.
    private static let directory = LockedValue<String?>(nil)

    static func copyDirectory(for resolved: String) throws(PluginError) -> String {
        let made: String? = directory.withLock { directory in
            if let directory { return directory }
            let temporary = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var template = Array("\(temporary)/beehive-plugins-\(getpid())-XXXXXX".utf8CString)
            guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return nil }
            directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            atexit { PluginFile.removeCopyDirectory() }
            return directory
        }
        guard let made else {
            throw PluginError(
                .notLoadable, "expected to make a directory for private copies in $TMPDIR; \(systemError())",
                path: resolved)
        }
        return made
    }

    /// Removes the copy directory and what is left in it (copies whose load was interrupted).
    static func removeCopyDirectory() {
        guard let path = directory.withLock({ $0 }), let folder = opendir(path) else { return }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { unlink("\(path)/\(name)") }
        }
        closedir(folder)
        rmdir(path)
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
