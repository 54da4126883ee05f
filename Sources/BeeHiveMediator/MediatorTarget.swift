import BeeHive
import BeeHiveRouter

/// A type whose named actions a ``Mediator`` can call by name: CTMediator's `Target_<Name>` class.
///
/// Name the type `Target_<Name>` (callers then say `target: "<Name>"`) or anything else (callers use the full
/// name). The mediator makes an instance with `init()` for each call, or keeps one when the caller asks for
/// `cacheTarget: true`, so a target must be safe to share between threads.
///
/// ```swift
/// final class Target_User: MediatorTarget {
///     static var actions: [MediatorAction<Target_User>] {
///         [
///             .local("profile") { target, request in UserScreen(id: try request.parameters.int("id")) },
///             .remote("card") { target, request in UserCard(id: try request.parameters.int("id")) },
///         ]
///     }
/// }
/// try mediator.perform(target: "User", action: "profile", params: ["id": 42])
/// ```
public protocol MediatorTarget: Sendable {
    /// Makes a target; called once per call, or once while the target is cached.
    init()

    /// The target's actions; names must be unique. Include ``MediatorAction/notFound(remoteCallable:_:)`` to
    /// handle unknown action names yourself.
    static var actions: [MediatorAction<Self>] { get }
}
