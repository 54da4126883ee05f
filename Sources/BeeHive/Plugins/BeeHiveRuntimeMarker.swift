internal import _BeeHiveRuntime
internal import _BeeHiveScanner

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Exported by every copy of BeeHive's core, under a C name: a plugin whose dependencies answer `dlsym` for it with
/// another address than the host's carries a copy of BeeHive of its own (it linked a static product), which would
/// register into another `Hive.shared`. Not API.
@_cdecl("beehive_core_runtime_marker")
public func __beehiveCoreRuntimeMarker() -> Int32 { 1 }

enum RuntimeMarker {
    /// The C name each copy of the core exports.
    static let symbol = "beehive_core_runtime_marker"

    /// The path of the shared library this copy of the core lives in (`libBeeHiveDynamic.so`); nil when it is linked
    /// into the program. Such a copy brings its own swift-log, which the program's `LoggingSystem.bootstrap` does not
    /// set up.
    static var sharedLibrary: String? {
        guard let own = bh_image_path(address), let main = bh_image_path(bh_main_program_address()) else { return nil }
        return strcmp(own, main) == 0 ? nil : String(cString: own)
    }

    /// The address of this copy's marker.
    static var address: UnsafeRawPointer {
        unsafeBitCast(__beehiveCoreRuntimeMarker as @convention(c) () -> Int32, to: UnsafeRawPointer.self)
    }
}
