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

/// A target instance with its actions bound to it, as the mediator stores and calls it.
struct BoundMediatorTarget: Sendable {
    struct Action: Sendable {
        var isRemoteCallable: Bool
        var run: @Sendable (MediatorRequest) throws -> Any?
    }

    /// The name the type was found under, for example `Target_User`.
    var name: String
    var actions: [String: Action]

    /// The action names, sorted, for messages.
    var actionNames: [String] { actions.keys.sorted() }
}

extension MediatorTarget {
    /// Makes an instance and binds its actions; runs user code (`init()`, `actions`), so never under a lock.
    static func bindForMediator(name: String) throws(MediatorError) -> BoundMediatorTarget {
        let instance = Self()
        var table: [String: BoundMediatorTarget.Action] = [:]
        for action in actions {
            guard table[action.name] == nil else {
                throw MediatorError(
                    .duplicateAction,
                    "target '\(name)': expected each action name once, found '\(action.name)' declared twice"
                )
            }
            let body = action.body
            table[action.name] = BoundMediatorTarget.Action(isRemoteCallable: action.isRemoteCallable) { request in
                try body(instance, request)
            }
        }
        return BoundMediatorTarget(name: name, actions: table)
    }
}
