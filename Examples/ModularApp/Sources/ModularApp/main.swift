// Runs five modules that announced themselves with annotation records (four in C, one in Swift), then waits for SIGTERM
// (or sends it to itself with --self-terminate) and shuts down gracefully, printing the profile.
// Hooks may be async (NetworkModule's init); the manager awaits each in order, tearDown in reverse.
import AppServices
import BeeHive
import BeeHiveModules
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

let manager = ModuleManager(profiler: TimeProfiler(isEnabled: true))
print("Modules, in start order:")
for module in manager.modules {
    print("  \(module.name): level \(module.level), priority \(module.priority)\(module.isAsync ? ", async" : "")")
}

try manager.subscribe(module: "Analytics.AnalyticsModule", to: .custom(AppEvents.cartChanged)) { context in
    print("  [analytics] cart changed: \(context.eventParameters["items"] ?? "-") items")
}

let handlers = manager.installSystemEventHandlers { signal in
    print("\nProfile (module × event, monotonic clock):")
    print(manager.profiler.table())
    print("\nexiting after signal \(signal)")
    exit(0)
}

print("\nsetUp, init, splash:")
await manager.start()  // returns after splash: every init, the async ones included, is done

print("\ncustom event \(AppEvents.cartChanged):")
try await manager.triggerCustomEvent(AppEvents.cartChanged, parameters: ["items": 3])

print("\nreload (what SIGHUP delivers):")
try await manager.trigger(.reload)

print("\nsettings service (annotated in Swift): theme \(try Hive.shared.createService(SettingsService.self).theme)")

let diagnostics = Hive.shared.diagnostics
if !diagnostics.isEmpty { print("\ndiagnostics:"); diagnostics.forEach { print("  \($0)") } }

if CommandLine.arguments.contains("--self-terminate") {
    print("\nsending SIGTERM to myself (pid \(getpid()))…")
    kill(getpid(), SIGTERM)
} else {
    print("\nrunning; stop with: kill -TERM \(getpid())")
}
// The signal handlers end the process (onTerminate above); until then, keep them installed.
while true {
    try await Task.sleep(for: .seconds(3600))
    withExtendedLifetime(handlers) {}
}
