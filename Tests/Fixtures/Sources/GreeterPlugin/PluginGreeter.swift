import BeeHive
import GreeterPluginAnnotations
import PluginAPI

/// The plugin's implementation, known to the host only by the name in its annotation record.
final class PluginGreeter: GreeterService, ServiceImplementation {
    static var isSingleton: Bool { true }
    init() {}
    func greet(_ name: String) -> String { "plugin says hello to \(name)" }
}
