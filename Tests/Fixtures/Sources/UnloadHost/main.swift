// Opens a plugin of records, rescans, closes it, rescans again, and prints what the hive saw.
import BeeHive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

let path = CommandLine.arguments[1]
/// Sources name an image by the path the kernel mapped: absolute, with symbolic links resolved.
let mappedPath =
    realpath(path, nil).map { resolved in
        defer { free(resolved) }
        return String(cString: resolved)
    } ?? path
func fromPlugin() -> Int { Hive.shared.serviceRegistrations.filter { $0.source.imagePath == mappedPath }.count }

print("before=\(fromPlugin())")
guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
    print("dlopen=failed: \(String(cString: dlerror()))")
    exit(1)
}
let opened = Hive.shared.rescan()
print("opened=services:\(opened.services),modules:\(opened.modules),unloaded:\(opened.unloadedImages)")
print("loaded=\(fromPlugin())")
print("modules=\(Hive.shared.moduleDeclarations.map(\.name).joined(separator: ","))")
dlclose(handle)
let closed = Hive.shared.rescan()
print("closed=services:\(closed.services),modules:\(closed.modules),unloaded:\(closed.unloadedImages)")
print("after=\(fromPlugin())")
print("modulesAfter=\(Hive.shared.moduleDeclarations.count)")
let warning = Hive.shared.diagnostics.first { $0.code == .imageUnloaded }
print("warning=\(warning.map { "\($0.severity) \($0.source.map { "\($0)" } ?? "-"): \($0.message)" } ?? "none")")
