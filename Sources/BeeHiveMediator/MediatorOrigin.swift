import BeeHive
import BeeHiveRouter

/// Where a mediator call comes from, which decides the actions it may reach.
public enum MediatorOrigin: Sendable, Hashable {
    /// A call from code in this process: every action is reachable.
    case local
    /// A call from outside the process (a URL opened by another app, a push, a web page): only actions marked
    /// remote-callable (``MediatorAction/remote(_:_:)-(_,MediatorAction<Target>.Body)``) are reachable.
    case remote
}
