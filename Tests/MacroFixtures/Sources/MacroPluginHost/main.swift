// Opens the plugin named on the command line with dlopen, rescans, and prints what happened.
import BeeHive
import PluginAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

func greet() -> String {
    do {
        return try Hive.shared.createService(GreeterService.self).greet("host")
    } catch {
        return "\(error.code)"
    }
}

print("before=\(greet())")
guard dlopen(CommandLine.arguments[1], RTLD_NOW | RTLD_GLOBAL) != nil else {
    print("dlopen=failed: \(String(cString: dlerror()))")
    exit(1)
}
let rescan = Hive.shared.rescan()
print("rescan=services:\(rescan.services),modules:\(rescan.modules)")
print("after=\(greet())")
print("implementation=\(Hive.shared.registration(for: "PluginAPI.GreeterService")?.implementation ?? "none")")
print("diagnostics=\(Hive.shared.diagnostics.count)")
