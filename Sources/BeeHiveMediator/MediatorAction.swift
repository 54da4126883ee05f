import BeeHive
import BeeHiveRouter

/// A named action of a ``MediatorTarget``: CTMediator's `Action_<name>:` method, as a typed value.
///
/// Actions are local-only unless made with ``remote(_:_:)-(_,MediatorAction<Target>.Body)``: a call from
/// outside the process (``MediatorOrigin/remote``) reaches only remote-callable actions. This generalises
/// CTMediator's rule that URL calls cannot reach `native`-prefixed actions: here every action opts in explicitly.
///
/// ```swift
/// static var actions: [MediatorAction<Target_User>] {
///     [
///         .local("profile") { target, request in target.profile(id: try request.parameters.int("id")) },
///         .remote("share", Target_User.share),          // a method `func share(_: MediatorRequest) -> Any?`
///         .notFound { _, request in "no action \(request.action)" },
///     ]
/// }
/// ```
public struct MediatorAction<Target: MediatorTarget>: Sendable {
    /// The closure that performs an action on a target instance.
    public typealias Body = @Sendable (Target, MediatorRequest) throws -> Any?

    /// The action name used in calls and URLs.
    public let name: String

    /// Whether a call from outside the process may reach the action.
    public let isRemoteCallable: Bool

    let body: Body

    /// Makes an action reachable only from code in this process.
    ///
    /// - Parameters:
    ///   - name: The action name.
    ///   - body: Performs the action on the target instance.
    /// - Returns: The action.
    public static func local(_ name: String, _ body: @escaping Body) -> MediatorAction {
        MediatorAction(name: name, isRemoteCallable: false, body: body)
    }

    /// Makes an action reachable from this process and from remote URLs.
    ///
    /// - Parameters:
    ///   - name: The action name.
    ///   - body: Performs the action on the target instance.
    /// - Returns: The action.
    public static func remote(_ name: String, _ body: @escaping Body) -> MediatorAction {
        MediatorAction(name: name, isRemoteCallable: true, body: body)
    }

    /// Makes a local-only action from a method such as `func profile(_ request: MediatorRequest) throws -> Any?`.
    ///
    /// - Parameters:
    ///   - name: The action name.
    ///   - method: The unapplied method, for example `Target_User.profile`.
    /// - Returns: The action.
    public static func local(
        _ name: String,
        _ method: @escaping @Sendable (Target) -> (MediatorRequest) throws -> Any?
    ) -> MediatorAction {
        MediatorAction(name: name, isRemoteCallable: false) { target, request in try method(target)(request) }
    }

    /// Makes a remote-callable action from a method such as `func share(_ request: MediatorRequest) -> Any?`.
    ///
    /// - Parameters:
    ///   - name: The action name.
    ///   - method: The unapplied method, for example `Target_User.share`.
    /// - Returns: The action.
    public static func remote(
        _ name: String,
        _ method: @escaping @Sendable (Target) -> (MediatorRequest) throws -> Any?
    ) -> MediatorAction {
        MediatorAction(name: name, isRemoteCallable: true) { target, request in try method(target)(request) }
    }

    /// Makes the target's not-found action (CTMediator's `Action_notFound:`), run for an unknown action name.
    ///
    /// ``MediatorRequest/action`` holds the missing action's name.
    ///
    /// - Parameters:
    ///   - remoteCallable: Whether unknown actions in remote calls reach it too (otherwise they go on to the
    ///     mediator's not-found handler).
    ///   - body: Handles the unknown action.
    /// - Returns: The action, named ``Mediator/notFoundActionName``.
    public static func notFound(remoteCallable: Bool = false, _ body: @escaping Body) -> MediatorAction {
        MediatorAction(name: Mediator.notFoundActionName, isRemoteCallable: remoteCallable, body: body)
    }
}
