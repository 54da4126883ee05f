import BeeHive

/// A call of a target's action with a declared result type: the caller's side of CTMediator's categories.
///
/// Declare each call once, where the module that offers it publishes its interface; callers then get a typed
/// result with no cast, and a mismatch between the declared type and what the action returns is a
/// ``MediatorError/Code/typeMismatch`` naming both.
///
/// ```swift
/// extension MediatorCall where Result == UserScreen {
///     static let userProfile = MediatorCall(target: "User", action: "profile")
/// }
/// let screen = try mediator.perform(.userProfile, params: ["id": 42])   // a UserScreen
/// ```
public struct MediatorCall<Result>: Sendable, Hashable, CustomStringConvertible {
    /// The target's name, as ``Mediator/perform(target:action:params:cacheTarget:origin:)`` takes it.
    public let target: String
    /// The action's name.
    public let action: String

    /// Declares a call.
    ///
    /// - Parameters:
    ///   - target: The target's name (`User` for `Target_User`, or a module-qualified type name).
    ///   - action: The action's name.
    public init(target: String, action: String) {
        self.target = target
        self.action = action
    }

    /// `<target>.<action> -> <Result>`.
    public var description: String { "\(target).\(action) -> \(Result.self)" }
}

extension Mediator {
    /// Performs a declared call and returns its result as the call's type.
    ///
    /// ```swift
    /// let screen = try Mediator.shared.perform(.userProfile, params: ["id": 42])
    /// ```
    /// - Parameters:
    ///   - call: The call.
    ///   - params: The parameters.
    ///   - cacheTarget: Whether to keep the target instance for later calls.
    /// - Returns: The action's result.
    /// - Throws: ``MediatorError`` with code ``MediatorError/Code/typeMismatch`` when the action returns another
    ///   type (or `nil`), and the errors of ``perform(target:action:params:cacheTarget:origin:)``.
    public func perform<Result>(
        _ call: MediatorCall<Result>, params: [String: any Sendable] = [:], cacheTarget: Bool = false
    ) throws -> Result {
        try perform(target: call.target, action: call.action, params: params, cacheTarget: cacheTarget, as: Result.self)
    }
}
