import BeeHiveMacros
import PluginAPI

/// The plugin's implementation, annotated in Swift only; the host knows it by the service alone.
@BeeHiveService(PluginAPI.GreeterService.self)
final class MacroPluginGreeter: GreeterService {
    init() {}
    func greet(_ name: String) -> String { "macro plugin says hello to \(name)" }
}
