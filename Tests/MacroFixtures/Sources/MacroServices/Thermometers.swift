import BeeHiveMacros

/// A service with a key: its implementations, here and in MacroApp, register under `ThermometerKey`.
@BeeHiveServiceKey
public protocol Thermometer: Sendable {
    var celsius: Int { get }
}

/// A singleton, annotated in the module that declares the key.
@BeeHiveService(Thermometer.self)
public final class LabThermometer: Thermometer, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public var celsius: Int { 21 }
}
