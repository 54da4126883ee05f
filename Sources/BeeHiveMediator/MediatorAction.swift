import BeeHive
import BeeHiveRouter

/// A named action of a ``MediatorTarget``: CTMediator's `Action_<name>:` method, as a typed value.
///
/// Actions are local-only unless made with ``remote(_:_:)-(_,MediatorAction<Target>.Body)``: a call from
/// outside the process (``MediatorOrigin/remote``) reaches only remote-callable actions. CTMediator's rule holds
/// too: an action whose name starts with `native` (``Mediator/nativeActionPrefix``) is never remote-callable, even
/// when made with `remote`; a remote call to it is refused with ``MediatorError/Code/remoteCallRefused``.
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

    /// Whether a call from outside the process may reach the action: made with `remote` (or a remote-callable
    /// `notFound`) and not named `native…`.
    public let isRemoteCallable: Bool

    let body: Body

    private init(name: String, isRemoteCallable: Bool, body: @escaping Body) {
        self.name = name
        self.isRemoteCallable = isRemoteCallable && !name.hasPrefix(Mediator.nativeActionPrefix)
        self.body = body
    }

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
    /// A name that starts with `native` makes a local-only action nonetheless (CTMediator's rule, see
    /// ``Mediator/nativeActionPrefix``): remote calls to it are refused with ``MediatorError/Code/remoteCallRefused``.
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
    /// A name that starts with `native` makes a local-only action nonetheless, as
    /// ``remote(_:_:)-(_,MediatorAction<Target>.Body)`` says.
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
