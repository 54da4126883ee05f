#if Macros
import Testing

@testable import _BeeHiveMacrosPlugin
#endif
