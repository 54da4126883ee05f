// Must not compile: WallClock does not conform to Clock. Type-checked by MacroCompileTimeCheckTests, whose
// expectation is a compiler error at line 11 that names both types.
import BeeHiveMacros

protocol Clock: Sendable {
    var now: Int { get }
}

// The annotation is on line 11.
// (the next line)
@BeeHiveService(Clock.self)
struct WallClock {
    var now: Int { 2 }
}
