// Modules declared by annotation records, driven by Linux signals: prints each event as it is delivered.
// SIGHUP -> reload; SIGTERM/SIGINT -> willTerminate, tearDown (reverse order), then exit 0.
import BeeHive
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

public class PrintingModule: HiveModule {
    public required init() {}
    public class var events: Set<ModuleEvent> { [.willTerminate, .reload] }
    var name: String { String(describing: type(of: self)) }
    public func modSetUp(_ context: ModuleContext) throws { say("\(name).setUp") }
    public func modInit(_ context: ModuleContext) throws { say("\(name).init") }
    public func modSplash(_ context: ModuleContext) throws { say("\(name).splash") }
    public func modTearDown(_ context: ModuleContext) throws { say("\(name).tearDown") }
    public func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws {
        say("\(name).\(event) signal=\(context.eventParameters["signal"] ?? "none")")
    }
}

public final class StorageModule: PrintingModule {}
public final class FeedModule: PrintingModule {}
public final class ShellModule: PrintingModule {}

let manager = ModuleManager.shared
let handlers = manager.installSystemEventHandlers(memoryPressure: false) { signal in
    say("exit after signal \(signal)")
    exit(0)
}
manager.start()
manager.waitUntilReady()
say("ready")
dispatchMain()
