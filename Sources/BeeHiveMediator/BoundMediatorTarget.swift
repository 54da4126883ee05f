import BeeHive
import BeeHiveRouter

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
