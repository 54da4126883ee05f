import BeeHiveMacros

/// A service of this module, implemented here and in MacroApp.
public protocol Clock: Sendable {
    var now: Int { get }
}

/// Annotated in this module: its record names `MacroServices.SystemClock`.
@BeeHiveService(Clock.self)
public struct SystemClock: Clock {
    public init() {}
    public var now: Int { 1000 }
}
