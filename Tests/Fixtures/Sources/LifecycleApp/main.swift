// Modules declared by annotation records, driven by Linux signals: prints each event as it is delivered.
// SIGHUP -> reload; SIGTERM/SIGINT -> willTerminate, tearDown (reverse order), then exit 0. Storage and Feed take
// them through modHandleEvent (they list the events), Shell through its named hooks, written as on iOS.
//
// LifecycleApp                   installs the handlers, starts the modules, prints "ready", waits for signals.
// LifecycleApp raise-at-once     starts the modules, installs the handlers and at once raises SIGTERM on itself.
// LifecycleApp hup-during-start  as LifecycleApp, but FeedModule's (async) init sends itself SIGHUP, then takes 200 ms.
// LifecycleApp cancel            installs and cancels the handlers (twice), then prints what it finds in
//                                key=value lines: the previous signal actions restored, descriptors close-on-exec,
//                                no descriptor closed twice.
import BeeHive
import BeeHiveModules
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

/// Handles willTerminate and reload through `modHandleEvent` (it lists them in `events`). Its init is async.
/// `@unchecked Sendable`: a base class (not final) with no stored state, nor any in its subclasses.
public class PrintingModule: HiveModule, @unchecked Sendable {
    public required init() {}
    public class var events: Set<ModuleEvent> { [.willTerminate, .reload] }
    var name: String { String(describing: type(of: self)) }
    public func modSetUp(_ context: ModuleContext) throws { say("\(name).setUp") }
    public func modInit(_ context: ModuleContext) async throws {
        if name == "FeedModule" && mode == "hup-during-start" {
            say("FeedModule.raising SIGHUP")
            // To the process, not this thread: the concurrency pool's threads block signals.
            kill(getpid(), SIGHUP)
            try await Task.sleep(for: .milliseconds(200))
        } else {
            try await Task.sleep(for: .milliseconds(1))
        }
        say("\(name).init")
    }
    public func modSplash(_ context: ModuleContext) throws { say("\(name).splash") }
    public func modTearDown(_ context: ModuleContext) async throws { say("\(name).tearDown") }
    public func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws {
        say("\(name).\(event) signal=\(context.eventParameters["signal"] ?? "none")")
    }
}

public final class StorageModule: PrintingModule, @unchecked Sendable {}
public final class FeedModule: PrintingModule, @unchecked Sendable {}

/// Written as on iOS: synchronous hooks, and the named hooks `modWillTerminate` and `modReload` instead of events.
public final class ShellModule: HiveModule {
    public init() {}
    func signal(_ context: ModuleContext) -> String { "signal=\(context.eventParameters["signal"] ?? "none")" }
    public func modSetUp(_ context: ModuleContext) { say("ShellModule.setUp") }
    public func modInit(_ context: ModuleContext) { say("ShellModule.init") }
    public func modSplash(_ context: ModuleContext) { say("ShellModule.splash") }
    public func modWillTerminate(_ context: ModuleContext) { say("ShellModule.willTerminate \(signal(context))") }
    public func modReload(_ context: ModuleContext) { say("ShellModule.reload \(signal(context))") }
    public func modTearDown(_ context: ModuleContext) { say("ShellModule.tearDown") }
}

let manager = ModuleManager.shared
let mode = CommandLine.arguments.dropFirst().first

func install() -> SystemEventHandlers {
    manager.installSystemEventHandlers(memoryPressure: false) { signal in
        say("exit after signal \(signal)")
        exit(0)
    }
}

/// The open descriptors of this process that are pipes or files: not libdispatch's own (epoll, eventfd, timerfd),
/// which it opens and closes when it likes.
func openDescriptors() -> Set<Int32> {
    var result: Set<Int32> = []
    guard let directory = opendir("/proc/self/fd") else { return result }
    defer { closedir(directory) }
    let own = dirfd(directory)
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if let fd = Int32(name), fd != own, !linkTarget(fd).hasPrefix("anon_inode:") { result.insert(fd) }
    }
    return result
}

/// What descriptor `fd` is open on.
func linkTarget(_ fd: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count)
    return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : "?"
}

/// The handler of `signal` right now, as a number: 0 default, 1 ignore, else the function's address.
func action(_ signal: Int32) -> UInt {
    var current = sigaction()
    sigaction(signal, nil, &current)
    return unsafeBitCast(current.__sigaction_handler.sa_handler, to: UInt.self)
}

func cancelTwice() {
    // Previous actions of our own, to be restored: SIGINT ignored, SIGHUP a handler of ours, SIGTERM default.
    signal(SIGINT, SIG_IGN)
    signal(SIGHUP) { _ in say("own SIGHUP handler") }
    let before = [SIGTERM, SIGINT, SIGHUP].map(action)
    let descriptors = openDescriptors()

    let handlers = manager.installSystemEventHandlers(memoryPressure: true) { _ in exit(3) }
    let added = openDescriptors().subtracting(descriptors).sorted()
    say("added=\(added.count)")
    say("addedFiles=\(added.map(linkTarget).joined(separator: ","))")
    say("cloexec=\(added.allSatisfy { fcntl($0, F_GETFD) & FD_CLOEXEC != 0 })")
    say("installed=\([SIGTERM, SIGINT, SIGHUP].map(action) != before)")
    say("pressure=\(handlers.memoryPressureSource ?? "none")")

    handlers.cancel()
    say("restored=\([SIGTERM, SIGINT, SIGHUP].map(action) == before)")
    // The memory-pressure thread closes its own ends when it wakes up.
    var leaked = openDescriptors().subtracting(descriptors)
    for _ in 0..<200 where !leaked.isEmpty {
        usleep(5_000)
        leaked = openDescriptors().subtracting(descriptors)
    }
    say("leaked=\(leaked.count)")
    // Descriptors opened now take the lowest free numbers: every one the first cancel freed.
    let files = (0..<8).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
    handlers.cancel()
    say("secondCancelKeptOthers=\(files.allSatisfy { fcntl($0, F_GETFD) != -1 })")
    for file in files { close(file) }
    say("restoredAfterSecondCancel=\([SIGTERM, SIGINT, SIGHUP].map(action) == before)")
    raise(SIGHUP)
    say("done")
}

/// Keeps `handlers` installed until a signal ends the process (`onTerminate` exits).
func waitForSignals(keeping handlers: SystemEventHandlers) async -> Never {
    while true {
        try? await Task.sleep(for: .seconds(3600))
        withExtendedLifetime(handlers) {}
    }
}

switch mode {
case "raise-at-once":
    await manager.start()
    let handlers = install()
    raise(SIGTERM)
    await waitForSignals(keeping: handlers)
case "cancel":
    cancelTwice()
default:
    let handlers = install()
    await manager.start()
    say("ready")
    await waitForSignals(keeping: handlers)
}
