/// A service a feature plugin provides: the server's routes of that plugin answer with it.
public protocol Greeting: Sendable {
    /// The greeting for `name`; it says which version of the plugin answered.
    func greet(_ name: String) -> String
}
