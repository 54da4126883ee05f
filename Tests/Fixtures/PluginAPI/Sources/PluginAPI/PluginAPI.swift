/// The service a plugin implements; shared by host and plugin through this shared library.
public protocol GreeterService {
    func greet(_ name: String) -> String
}
