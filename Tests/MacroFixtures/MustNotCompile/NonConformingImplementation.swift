// Must not compile: WallClock does not conform to Clock. Type-checked by MacroCompileTimeCheckTests, whose
// expectation is our own error ("@BeeHiveService(Clock.self): App.WallClock must conform to App.Clock, …"), at the
// annotation (line 11): not only the expansion's conversion error.
import BeeHiveMacros

protocol Clock: Sendable {
    var now: Int { get }
}

// The annotation is on line 11.
@BeeHiveService(Clock.self)
struct WallClock {
    var now: Int { 2 }
}
