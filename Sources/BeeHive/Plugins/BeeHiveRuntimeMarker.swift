/// Exported by every copy of BeeHive's core, under a C name: a plugin whose dependencies answer `dlsym` for it with
/// another address than the host's carries a copy of BeeHive of its own (it linked a static product), which would
/// register into another `Hive.shared`. Not API.
@_cdecl("beehive_core_runtime_marker")
public func __beehiveCoreRuntimeMarker() -> Int32 { 1 }

enum RuntimeMarker {
    /// The C name each copy of the core exports.
    static let symbol = "beehive_core_runtime_marker"

    /// The address of this copy's marker.
    static var address: UnsafeRawPointer {
        unsafeBitCast(__beehiveCoreRuntimeMarker as @convention(c) () -> Int32, to: UnsafeRawPointer.self)
    }
}
