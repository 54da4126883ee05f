import BeeHive
import BeeHiveRouter

/// Everything a target's action receives.
public struct MediatorRequest: Sendable {
    /// The target name as the caller gave it (for example `User`).
    public let targetName: String

    /// The action the caller asked for; for a not-found action, the missing action's name.
    public let action: String

    /// The caller's parameters (strings, percent-decoded, for a URL call).
    public let parameters: MediatorParameters

    /// Whether the call came from this process or from outside it.
    public let origin: MediatorOrigin

    /// The URL, for a call made with ``Mediator/perform(url:origin:)``, after redirects.
    public let url: String?

    /// Makes a request, for example to test an action without a mediator.
    ///
    /// - Parameters:
    ///   - targetName: The target name.
    ///   - action: The action name.
    ///   - parameters: The parameters.
    ///   - origin: The origin.
    ///   - url: The URL, if the call came from one.
    public init(
        targetName: String,
        action: String,
        parameters: MediatorParameters = MediatorParameters(),
        origin: MediatorOrigin = .local,
        url: String? = nil
    ) {
        self.targetName = targetName
        self.action = action
        self.parameters = parameters
        self.origin = origin
        self.url = url
    }
}
