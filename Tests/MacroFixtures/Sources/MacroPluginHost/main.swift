// Opens the plugin named on the command line with dlopen, rescans, and prints what happened; with `--report` after
// the plugin's path, last the shared hive's report as JSON on one line, `report={…}`. The host itself is annotated
// in Swift only (no C record, so no image note): its records are found through the Swift runtime alone.
import BeeHive
import BeeHiveMacros
import FoundationEssentials
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

/// The host's own service, named and ranked so that the plugin's unnamed greeter is the one `greet()` gets.
@BeeHiveService(PluginAPI.GreeterService.self, name: "host")
final class HostGreeter: GreeterService {
    init() {}
    func greet(_ name: String) -> String { "the host greets \(name)" }
}

let hostGreeting = try? Hive.shared.createService(GreeterService.self, name: "host").greet("itself")
print("host=\(hostGreeting ?? "not found")")
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
if CommandLine.arguments.dropFirst(2).contains("--report") {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    print("report=" + String(decoding: try encoder.encode(Hive.shared.report()), as: UTF8.self))
}
