import BeeHive
import DoubleBeeHiveRecords
import PluginAPI

/// A plugin built the wrong way: it links the static BeeHive product, so it carries a copy of BeeHive of its own.
/// Loaded with Hive.plugins, it is refused with what to change.
public final class DoubleGreeter: GreeterService, ServiceImplementation {
    public init() {}
    public func greet(_ name: String) -> String { "double:\(name)" }
}
