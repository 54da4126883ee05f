// A plugin host driven by a script: each argument is one step, run in order, and each result is printed as
// `<step>.<key>=<value>` lines (step numbers count from 0), so that a test can play out plugins that come and
// go, files that change under a loaded image, and read what the shared hive made of it.
//
//     PluginLab open:/tmp/x/a.so rescan close:0 open:/tmp/x/b.so rescan services route:lab://alpha/1 exit
//
// Steps:
//   open:<path>                 dlopen (RTLD_NOW | RTLD_LOCAL); prints the handle number and the load address
//   close:<handle>              dlclose the handle opened by the n-th open (from 0)
//   rescan                      Hive.shared.rescan(); prints its report
//   services, modules, declared-routes
//                               one line per registration: what, from which image path and image id
//   route:<url>                 whether the process-wide router of the URL's scheme can open it, and what opening
//                               it returns (the handler type's name)
//   diagnostics                 one line per kept diagnostic, then the count kept and dropped
//   counts                      only the count of diagnostics kept and dropped
//   chdir:<dir>                 changes the working directory
//   truncate:<path>:<bytes>     truncates a file in place
//   mkfifo-replace:<path>       unlinks a file and puts a FIFO at its path
//   overwrite-head:<path>       writes 16 bytes of garbage over the start of a file, in place
//   copy-over:<from>:<to>       rewrites <to> in place (same inode) with the bytes of <from>
//   replace:<from>:<to>         puts a copy of <from> at <to> by rename (a new inode)
//   cycles:<count>:<path>       count times: open, rescan, close, rescan; prints how many failed
//   exhaust-fds                 opens /dev/null until the process runs out of file descriptors (EMFILE)
//   release-fds                 closes the descriptors exhaust-fds opened
//   bootstrap                   Hive.bootstrap(_:) with default options; prints ok or the error
//   remove-all-routers          Router.removeAllRouters(); prints the schemes left
//   validate-routes             Router.validateDeclaredRoutes(in: .shared); prints ok, or one line per problem
//   libelf                      whether libelf.so.1 is in the process (loaded:yes|no) and whether its symbols are in
//                               the loader's global scope (global:yes|no); loads nothing
//   resolve:<type>              registers <type> (a module-qualified name) as an implementation of PluginLab.LabService
//                               and creates it by name; prints what it made, or the error
//   exit                        flushes and leaves with _exit(0)
// The program always leaves with _exit(0): a library truncated under it would fault in its destructors.
import BeeHive
import BeeHiveRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The handler that records of the test plugins name for their routes.
struct LabRoute: RouteHandler {
    func handle(_ request: RouteRequest) throws -> Any? { "LabRoute" }
}

/// A second handler, so that a test can tell which of two plugins' routes answers.
/// A type a bad route record names as its handler, which is no `RouteHandler`.
struct NotARoute {}

struct LabRouteV2: RouteHandler {
    func handle(_ request: RouteRequest) throws -> Any? { "LabRouteV2" }
}

/// A service of the host, resolved by name (the step resolve:<type>).
protocol LabService { func label() -> String }

/// The host's implementation of ``LabService``.
final class LabServiceImpl: LabService, ServiceImplementation {
    init() {}
    func label() -> String { "LabServiceImpl" }
}

// The shared hive's first use registers what is loaded now, so that each rescan's report counts only its own step;
// a script with a bootstrap step leaves the shared hive to the steps (it must not exist before bootstrap).
if !CommandLine.arguments.contains("bootstrap") { _ = Hive.shared.diagnostics }

var handles: [UnsafeMutableRawPointer?] = []
var spareDescriptors: [Int32] = []

func emit(_ step: Int, _ key: String, _ value: String) {
    print("\(step).\(key)=\(value)")
}

func leave() -> Never {
    fflush(nil)
    _exit(0)
}

func systemError() -> String { String(cString: strerror(errno)) }

/// Where the file at `path` is mapped from its first byte (file offset 0): for the test plugins, whose first
/// loaded segment starts at address 0, their load address. Read from /proc/self/maps.
func loadAddress(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return "unknown" }
    let file = String(cString: resolved)
    free(resolved)
    let maps = String(decoding: readFile("/proc/self/maps") ?? [], as: UTF8.self)
    for line in maps.split(separator: "\n") where line.hasSuffix(" " + file) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 6, fields[2] == "00000000", let range = fields.first?.split(separator: "-").first
        else { continue }
        return "0x" + range
    }
    return "unknown"
}

func describe(_ source: RegistrationSource?) -> String {
    guard let source else { return "@ - #0" }
    return "@ \(source.imagePath ?? "\(source)") #\(source.imageID ?? 0)"
}

func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { break }
        bytes += buffer[..<count]
    }
    return bytes
}

func writeFile(_ path: String, _ bytes: [UInt8], flags: Int32) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | flags, 0o755)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
}

/// Splits `kind:a:b` after the kind into at most `parts` fields (the last keeps any further colons).
func fields(_ step: String, _ parts: Int) -> [String] {
    step.split(separator: ":", maxSplits: parts, omittingEmptySubsequences: false).dropFirst().map(String.init)
}

for (index, step) in CommandLine.arguments.dropFirst().enumerated() {
    let kind = step.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
    switch kind {
    case "open":
        let path = fields(step, 1)[0]
        if let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) {
            handles.append(handle)
            emit(index, "open", "handle:\(handles.count - 1) base:\(loadAddress(path))")
        } else {
            handles.append(nil)
            emit(index, "open", "failed: \(dlerror().map { String(cString: $0) } ?? "?")")
        }
    case "close":
        let number = Int(fields(step, 1)[0]) ?? -1
        if handles.indices.contains(number), let handle = handles[number] {
            emit(index, "close", "\(dlclose(handle))")
            handles[number] = nil
        } else {
            emit(index, "close", "no handle \(number)")
        }
    case "rescan":
        let r = Hive.shared.rescan()
        emit(
            index, "rescan",
            "sections:\(r.sections) services:\(r.services) modules:\(r.modules) routes:\(r.routes) "
                + "problems:\(r.problems) unloaded:\(r.unloadedImages)")
    case "services":
        let registrations = Hive.shared.serviceRegistrations
        for r in registrations {
            emit(index, "service", "\(r.displayName) -> \(r.implementation) \(describe(r.source))")
        }
        emit(index, "services", "\(registrations.count)")
    case "new-hive-services":
        // A hive made now: its scanner's first walk, which takes what earlier walks of this process checked.
        let registrations = Hive(options: .init(scansLoadedImages: true)).serviceRegistrations
        for r in registrations {
            emit(index, "service", "\(r.displayName) -> \(r.implementation) \(describe(r.source))")
        }
        emit(index, "services", "\(registrations.count)")
    case "modules":
        let modules = Hive.shared.moduleDeclarations
        for m in modules { emit(index, "module", "\(m.name) -> priority:\(m.priority) \(describe(m.source))") }
        emit(index, "modules", "\(modules.count)")
    case "declared-routes":
        let routes = Hive.shared.routeDeclarations
        for r in routes { emit(index, "declaredRoute", "\(r.pattern) -> \(r.handler) \(describe(r.source))") }
        emit(index, "declaredRoutes", "\(routes.count)")
    case "route":
        let url = fields(step, 1)[0]
        let scheme = url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let router = Router.forScheme(scheme)
        let opened: String
        do {
            opened = "\(try router.open(url) ?? "nil")"
        } catch {
            opened = "error"
            emit(index, "routeError", "\(error)")
        }
        emit(index, "route", "canOpen:\(router.canOpen(url)) opened:\(opened)")
    case "validate-routes":
        do {
            try Router.validateDeclaredRoutes(in: .shared)
            emit(index, "validate", "ok")
        } catch {
            for line in error.message.split(separator: "\n").dropFirst() { emit(index, "problem", String(line)) }
        }
    case "remove-all-routers":
        Router.removeAllRouters()
        emit(index, "schemes", Router.schemes.joined(separator: ","))
    case "bootstrap":
        do {
            try Hive.bootstrap(Hive.Options())
            emit(index, "bootstrap", "ok")
        } catch {
            emit(index, "bootstrap", "\(error)")
        }
    case "diagnostics", "counts":
        let diagnostics = Hive.shared.diagnostics
        if kind == "diagnostics" {
            for d in diagnostics {
                let message = d.message.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
                emit(index, "diagnostic", "\(d.severity) \(d.code) \(describe(d.source)): \(message)")
            }
        }
        emit(index, "diagnostics", "count:\(diagnostics.count) dropped:\(Hive.shared.droppedDiagnosticCount)")
    case "chdir":
        emit(index, "chdir", chdir(fields(step, 1)[0]) == 0 ? "ok" : systemError())
    case "truncate":
        let f = fields(step, 2)
        emit(index, "truncate", truncate(f[0], off_t(f.count > 1 ? Int(f[1]) ?? 0 : 0)) == 0 ? "ok" : systemError())
    case "mkfifo-replace":
        let path = fields(step, 1)[0]
        emit(index, "mkfifo", unlink(path) == 0 && mkfifo(path, 0o644) == 0 ? "ok" : systemError())
    case "overwrite-head":
        let path = fields(step, 1)[0]
        let garbage = [UInt8]("not an ELF file!".utf8)
        let fd = open(path, O_WRONLY)
        let written = fd >= 0 ? garbage.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } : -1
        if fd >= 0 { close(fd) }
        emit(index, "overwrite", written == garbage.count ? "ok" : systemError())
    case "copy-over", "replace":
        let f = fields(step, 2)
        guard f.count == 2, let bytes = readFile(f[0]) else {
            emit(index, kind, "cannot read \(f.first ?? "")")
            continue
        }
        let done =
            kind == "copy-over"
            ? writeFile(f[1], bytes, flags: O_TRUNC)
            : writeFile(f[1] + ".new", bytes, flags: O_TRUNC) && rename(f[1] + ".new", f[1]) == 0
        emit(index, kind, done ? "ok" : systemError())
    case "cycles":
        let f = fields(step, 2)
        let count = Int(f[0]) ?? 0
        var failures = 0
        for _ in 0..<count {
            guard let handle = dlopen(f[1], RTLD_NOW | RTLD_LOCAL) else {
                failures += 1
                continue
            }
            Hive.shared.rescan()
            dlclose(handle)
            Hive.shared.rescan()
        }
        emit(index, "cycles", "\(count) failures:\(failures)")
    case "exhaust-fds":
        while spareDescriptors.count < 1_000_000 {
            let fd = open("/dev/null", O_RDONLY)
            if fd < 0 { break }
            spareDescriptors.append(fd)
        }
        emit(index, "exhaust", "\(spareDescriptors.count) \(systemError())")
    case "release-fds":
        for fd in spareDescriptors { close(fd) }
        emit(index, "release", "\(spareDescriptors.count)")
        spareDescriptors = []
    case "resolve":
        let name = fields(step, 1)[0]
        do {
            try Hive.shared.register(service: "PluginLab.LabService", impl: name, name: "resolve-\(index)")
            emit(index, "resolve", try Hive.shared.createService(LabService.self, name: "resolve-\(index)").label())
        } catch {
            emit(index, "resolve", "error \(error)")
        }
    case "libelf":
        // RTLD_NOLOAD finds a loaded library without loading it; RTLD_DEFAULT (nil) looks in the global scope only.
        let handle = dlopen("libelf.so.1", RTLD_NOW | RTLD_NOLOAD)
        if let handle { dlclose(handle) }
        let global = dlsym(nil, "elf_begin") != nil
        emit(index, "libelf", "loaded:\(handle != nil ? "yes" : "no") global:\(global ? "yes" : "no")")
    case "exit":
        leave()
    default:
        emit(index, "error", "unknown step \(step)")
    }
    fflush(nil)
}
leave()
