// Must not compile: WallClock does not conform to Clock. Type-checked by MacroCompileTimeCheckTests, whose
// expectation is a compiler error in the expansion of @BeeHiveService that names both types, with a note at the
// annotated struct (line 14, where the expansion attaches).
import BeeHiveMacros

protocol Clock: Sendable {
    var now: Int { get }
}

// The annotation is on line 11; the compiler's note points at the end of the struct, line 14.
@BeeHiveService(Clock.self)
struct WallClock {
    var now: Int { 2 }
}
