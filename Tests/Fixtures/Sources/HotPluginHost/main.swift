// A plugin host on BeeHiveDynamic driven by a script, for Swift plugins that come and go: each argument is one step,
// run in order, and each result is printed as `<step>.<key>=<value>` (steps count from 0). Plugins print `note=` lines.
//
//     HotPluginHost open:/tmp/x/libHotGreeterV1.so rescan greet close:0 rescan greet
//
// Steps:
//   open:<path>          dlopen (RTLD_NOW | RTLD_LOCAL), the user's own way; prints the handle number
//   close:<handle>       dlclose the handle of the n-th open (from 0); prints dlclose's result
//   rescan               Hive.shared.rescan(); prints its report
//   greet                resolves PluginAPI.GreeterService and greets; prints the answer or the error's code
//   route:<url>          opens the URL on the router of its scheme; prints the handler's answer or `error`
//   mapped:<path>        whether a file whose path contains <path> is mapped in the process (/proc/self/maps): yes or no
//   load:<path>          Hive.shared.plugins.load(path:); prints the plugin's number and what it registered, or the
//                        error's code and message; `trusted-load:<path>` requires trusted files
//   retire:<plugin>      retires the n-th plugin (from 0; upgrades count as plugins)
//   upgrade:<plugin>:<path>
//                        upgrades the n-th plugin to the file at <path>
//   start-modules        starts ModuleManager.shared (setUp, init, splash); prints done
//   settle               waits until the module manager delivered the events of plugins that joined or left
//   modules              the module manager's modules, in order
//   copy-over:<from>:<to>  rewrites <to> in place (same inode) with the bytes of <from>
//   stress:<readers>:<upgrades>:<path A>:<path B>
//                        readers resolve the greeter (plain and named) and open hot://greet/x in a loop while this
//                        thread upgrades the last plugin to B, A, B, … <upgrades> times; prints calls, failures, the
//                        versions seen
//   upgrades:<n>:<path A>:<path B>
//                        upgrades the last plugin to B, A, B, … n times, resolving after each; prints the resident
//                        memory (kB) after each upgrade, comma-separated
//   rss                  the process's resident memory (VmRSS), in kB
//   retired-mapped       what is mapped of plugins' private copies (/proc/self/maps): `kB:<size> mappings:<count>`
//   exit                 leaves with exit(0), so that handlers registered with atexit run (the script's end does not)
import BeeHive
import BeeHiveModules
import BeeHiveRouter
import Dispatch
import PluginAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

var handles: [UnsafeMutableRawPointer?] = []
nonisolated(unsafe) var plugins: [Plugin] = []

/// Runs async work to its end from this synchronous script.
func wait(_ work: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await work()
        done.signal()
    }
    done.wait()
}

func describe(_ plugin: Plugin) -> String {
    let r = plugin.registered
    return "plugin:\(plugins.count - 1) services:\(r.services) modules:\(r.modules) routes:\(r.routes) "
        + "swift:\(plugin.hasSwiftCode) copied:\(plugin.mappedPath.contains(".beehive-"))"
}

func describe(_ error: PluginError) -> String {
    "error:\(error.code) \(error.message.replacingNewlines())"
}

extension String {
    func replacingNewlines() -> String { split(separator: "\n").joined(separator: " | ") }
}

func residentKilobytes() -> String {
    guard let file = fopen("/proc/self/status", "r") else { return "?" }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 512)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") { return text.filter(\.isNumber) }
    }
    return "?"
}

/// The version a greeting or a route answer names: `v1:host` → 1.
func version(_ answer: String) -> Int? {
    guard answer.hasPrefix("v"), let colon = answer.firstIndex(of: ":") else { return nil }
    return Int(answer[answer.index(after: answer.startIndex)..<colon])
}

/// What the stress readers counted.
final class Tally: @unchecked Sendable {
    private let lock = NSLockish()
    var calls = 0
    var failures: [String] = []
    var versions: Set<Int> = []
    func merge(calls: Int, failures: [String], versions: Set<Int>) {
        lock.locked {
            self.calls += calls
            self.failures += failures.prefix(5)
            self.versions.formUnion(versions)
        }
    }
}

/// A mutex (no Foundation in this host).
final class NSLockish: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}

/// Reader threads that resolve and open routes while the main thread upgrades.
func stress(readers: Int, upgrades: Int, a: String, b: String) -> String {
    let tally = Tally()
    let stop = NSLockish()
    let progress = NSLockish()
    nonisolated(unsafe) var rounds = 0
    nonisolated(unsafe) var stopped = false
    let group = DispatchGroup()
    for _ in 0..<readers {
        group.enter()
        Thread.detach {
            var calls = 0
            var failures: [String] = []
            var seen: Set<Int> = []
            while !stop.locked({ stopped }) {
                // Each answer is one call, and every call must get a version: never "not found".
                progress.locked { rounds += 1 }
                for answer in [greet(), greetNamed(), route("hot://greet/x")] {
                    calls += 1
                    guard let v = version(answer) else {
                        failures.append(answer)
                        continue
                    }
                    seen.insert(v)
                }
            }
            tally.merge(calls: calls, failures: failures, versions: seen)
            group.leave()
        }
    }
    var upgradeFailures = 0
    /// Waits until the readers have made `count` more rounds of calls, so that every version is asked for.
    func awaitRounds(_ count: Int) {
        let target = progress.locked { rounds } + count
        while progress.locked({ rounds }) < target { usleep(100) }
    }
    for index in 0..<upgrades {
        awaitRounds(readers * 4)
        guard let last = plugins.last else { break }
        do {
            plugins.append(try Hive.shared.plugins.upgrade(last, to: index % 2 == 0 ? b : a))
        } catch {
            upgradeFailures += 1
            print("upgradeError=\(error)")
        }
    }
    awaitRounds(readers * 4)
    stop.locked { stopped = true }
    group.wait()
    return
        "calls:\(tally.calls) failures:\(tally.failures.count) versions:\(tally.versions.sorted().map(String.init).joined(separator: ",")) "
        + "upgradeFailures:\(upgradeFailures) sample:\(tally.failures.first ?? "-")"
}

func greetNamed() -> String {
    do {
        return try Hive.shared.createService(GreeterService.self, name: "hot").greet("named")
    } catch {
        return "\(error.code)"
    }
}

/// Starts a thread running `body` (no Foundation in this host).
enum Thread {
    static func detach(_ body: @escaping @Sendable () -> Void) {
        final class Box {
            let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        pthread_detach(thread)
    }
}

func emit(_ step: Int, _ key: String, _ value: String) {
    print("\(step).\(key)=\(value)")
    fflush(nil)
}

func greet() -> String {
    do {
        return try Hive.shared.createService(GreeterService.self).greet("host")
    } catch {
        return "\(error.code)"
    }
}

func route(_ url: String) -> String {
    let scheme = url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
    do {
        return "\(try Router.forScheme(scheme).open(url) ?? "nil")"
    } catch {
        return "error"
    }
}

/// Whether a file whose name ends with `name` is mapped, read from /proc/self/maps.
func isMapped(_ name: String) -> Bool {
    guard let file = fopen("/proc/self/maps", "r") else { return false }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 4096)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingSuffix()
        if text.contains(name) { return true }
    }
    return false
}

/// The size and number of the mappings of plugins' private copies, read from /proc/self/maps.
func privateCopiesMapped() -> String {
    guard let file = fopen("/proc/self/maps", "r") else { return "unknown" }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 4096)
    var bytes = 0
    var count = 0
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard text.contains(".beehive-"), let range = text.split(separator: " ").first else { continue }
        let bounds = range.split(separator: "-").compactMap { Int($0, radix: 16) }
        if bounds.count == 2 {
            bytes += bounds[1] - bounds[0]
            count += 1
        }
    }
    return "kB:\(bytes / 1024) mappings:\(count)"
}

extension String {
    func trimmingSuffix() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}

func readAll(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { return [] }
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

func fields(_ step: String) -> [String] {
    step.split(separator: ":", omittingEmptySubsequences: false).dropFirst().map(String.init)
}

_ = Hive.shared.diagnostics  // the shared hive registers what is loaded now

for (index, step) in CommandLine.arguments.dropFirst().enumerated() {
    let kind = step.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
    let arguments = fields(step)
    switch kind {
    case "open":
        if let handle = dlopen(arguments[0], RTLD_NOW | RTLD_LOCAL) {
            handles.append(handle)
            emit(index, "open", "handle:\(handles.count - 1)")
        } else {
            handles.append(nil)
            emit(index, "open", "failed: \(dlerror().map { String(cString: $0) } ?? "?")")
        }
    case "close":
        let number = Int(arguments[0]) ?? -1
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
            "services:\(r.services) modules:\(r.modules) routes:\(r.routes) unloaded:\(r.unloadedImages)")
    case "greet":
        emit(index, "greet", greet())
    case "route":
        emit(index, "route", route(step.dropFirst("route:".count).description))
    case "mapped":
        emit(index, "mapped", isMapped(arguments[0]) ? "yes" : "no")
    case "load", "trusted-load":
        do {
            let options = Hive.PluginLoadOptions(requiresTrustedFiles: kind == "trusted-load")
            plugins.append(try Hive.shared.plugins.load(path: arguments[0], options: options))
            emit(index, "load", describe(plugins[plugins.count - 1]))
        } catch {
            emit(index, "load", describe(error))
        }
    case "retire":
        do {
            try plugins[Int(arguments[0]) ?? 0].retire()
            emit(index, "retire", "ok")
        } catch {
            emit(index, "retire", describe(error))
        }
    case "upgrade":
        do {
            plugins.append(try Hive.shared.plugins.upgrade(plugins[Int(arguments[0]) ?? 0], to: arguments[1]))
            emit(index, "upgrade", describe(plugins[plugins.count - 1]))
        } catch {
            emit(index, "upgrade", describe(error))
        }
    case "start-modules":
        wait { await ModuleManager.shared.start() }
        emit(index, "start-modules", "done")
    case "settle":
        wait { await ModuleManager.shared.pluginEventsDelivered() }
        emit(index, "settle", "done")
    case "modules":
        emit(index, "modules", ModuleManager.shared.modules.map(\.name).joined(separator: ","))
    case "copy-over":
        let bytes = readAll(arguments[0])
        let fd = open(arguments[1], O_WRONLY | O_TRUNC)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        emit(index, "copy-over", written == bytes.count ? "ok" : "failed")
    case "stress":
        emit(
            index, "stress",
            stress(readers: Int(arguments[0]) ?? 2, upgrades: Int(arguments[1]) ?? 10, a: arguments[2], b: arguments[3])
        )
    case "upgrades":
        var sizes: [String] = []
        for number in 0..<(Int(arguments[0]) ?? 1) {
            do {
                let next = number % 2 == 0 ? arguments[2] : arguments[1]
                plugins.append(try Hive.shared.plugins.upgrade(plugins[plugins.count - 1], to: next))
                _ = greet()
                _ = route("hot://greet/x")
            } catch {
                emit(index, "upgradeError", "\(error)")
            }
            sizes.append(residentKilobytes())
        }
        emit(index, "upgrades", sizes.joined(separator: ","))
    case "rss":
        emit(index, "rss", residentKilobytes())
    case "retired-mapped":
        emit(index, "retired-mapped", privateCopiesMapped())
    case "exit":
        fflush(nil)
        exit(0)
    default:
        emit(index, "error", "unknown step \(step)")
    }
}
fflush(nil)
_exit(0)
