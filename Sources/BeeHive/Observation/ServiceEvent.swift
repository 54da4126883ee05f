/// A change of the registration that serves a service: it began to serve, it is about to stop, or it stopped.
///
/// ```swift
/// let observation = Hive.shared.observe(PriceService.self) { event in
///     print(event)  // added PriceService -> PricesV2.Prices (plugin /opt/app/plugins/libPricesV2.so)
/// }
/// ```
public struct ServiceEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the registration.
    public enum Kind: String, Sendable, Hashable {
        /// It serves its service (and name) now: registered from records, a file, code or a plugin, or taking over
        /// from one that left.
        case added
        /// It is about to stop serving (its plugin is being retired or upgraded): it is still served while the
        /// handlers of this event run, and stops once they returned.
        case removing
        /// It stopped serving (its plugin was retired or upgraded, or its image unloaded).
        case removed
    }

    /// What happened.
    public let kind: Kind
    /// The registration: service, name, implementation and where it came from.
    public let registration: ServiceRegistration
    /// The path the registration's plugin was loaded from (``Plugin/path``), when it came with a plugin.
    public let plugin: String?

    /// Creates an event.
    public init(_ kind: Kind, _ registration: ServiceRegistration, plugin: String? = nil) {
        self.kind = kind
        self.registration = registration
        self.plugin = plugin
    }

    public var description: String {
        "\(kind) \(registration.displayName) -> \(registration.implementation)"
            + (plugin.map { " (plugin \($0))" } ?? " (\(registration.source))")
    }
}
