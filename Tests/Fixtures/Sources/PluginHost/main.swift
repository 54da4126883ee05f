// Opens the plugin named on the command line with dlopen, rescans, and prints what happened; with `--report` after
// the plugin's path, last the shared hive's report as JSON on one line, `report={…}`; with `--records-only`, no
// registration in code: the plugin's service is first bound through its record.
import BeeHive
import FoundationEssentials
import PluginAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Registrations of the plugin's service that came from an image's records.
func count() -> Int {
    Hive.shared.serviceRegistrations.filter { $0.service == "PluginAPI.GreeterService" && $0.source.imagePath != nil }
        .count
}

let path = CommandLine.arguments[1]
let inCode = !CommandLine.arguments.dropFirst(2).contains("--records-only")
print("before=\(count())")
print("resolveBefore=\((try? Hive.shared.createService(GreeterService.self)) == nil ? "missing" : "found")")
// A registration by name of a type that only the plugin has: unknown now, found once it is loaded.
if inCode {
    _ = try? Hive.shared.register(
        service: "PluginAPI.GreeterService", impl: "GreeterPlugin.PluginGreeter", name: "byName")
}
func greetByName() -> String {
    do {
        return (try Hive.shared.createService(GreeterService.self, name: "byName")).greet("by name")
    } catch {
        return "\(error.code)"
    }
}
if inCode { print("byNameBefore=\(greetByName())") }
guard dlopen(path, RTLD_NOW | RTLD_GLOBAL) != nil else {
    print("dlopen=failed: \(String(cString: dlerror()))")
    exit(1)
}
if inCode { print("byNameAfterLoad=\(greetByName())") }
let first = Hive.shared.rescan()
print("firstRescan=services:\(first.services),modules:\(first.modules),sections:\(first.sections)")
print("after=\(count())")
let second = Hive.shared.rescan()
print("secondRescan=services:\(second.services),modules:\(second.modules),sections:\(second.sections)")
print("afterSecond=\(count())")
do {
    print("greet=\(try Hive.shared.createService(GreeterService.self).greet("host"))")
} catch {
    print("greet=error: \(error)")
}
let source = Hive.shared.registration(for: "PluginAPI.GreeterService")?.source
print("sourceImage=\(source?.imagePath ?? "none")")
print("modules=\(Hive.shared.moduleDeclarations.map(\.name).joined(separator: ","))")
print("diagnostics=\(Hive.shared.diagnostics.count)")
let stats = Hive.shared.scanStatistics
print("scans=\(stats?.scans ?? -1),shortCircuit=\(stats?.shortCircuitScans ?? -1)")
if CommandLine.arguments.dropFirst(2).contains("--report") {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    print("report=" + String(decoding: try encoder.encode(Hive.shared.report()), as: UTF8.self))
}
