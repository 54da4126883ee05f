/// Keeps the registrations that serve a service now, following its ``ServiceEvent``s (OSGi's service tracker).
///
/// ```swift
/// let prices = ServiceTracker(PriceService.self, in: .shared)
/// print(prices.registrations.map(\.implementation))  // ["PricesV1.Prices"]
/// ```
///
/// It starts with the registrations that serve the service when it is made, then drops a registration at its
/// `removing` (before it stops being served) and adds one at its `added`, as the hive's event queue delivers them.
public final class ServiceTracker: Sendable {
    private let current: LockedValue<[ServiceRegistration]>
    private let observation: LockedValue<ServiceObservation?>

    /// Tracks `service` in `hive`.
    /// - Parameters:
    ///   - service: The service, usually a protocol.
    ///   - hive: The hive whose registrations are followed.
    ///   - fileID: Where the tracker is made, named if it ever holds a retire up; leave the default.
    ///   - line: The line of `fileID`; leave the default.
    public init<Service>(_ service: Service.Type, in hive: Hive, fileID: String = #fileID, line: Int = #line) {
        let current = LockedValue<[ServiceRegistration]>([])
        let observation = hive.observe(
            named: TypeLookup.name(of: service), site: "\(fileID):\(line)", replaying: false,
            start: { now in current.withLock { $0 = now } }
        ) { event in
            current.withLock { registrations in
                registrations.removeAll { $0 == event.registration }
                if event.kind == .added { registrations.append(event.registration) }
            }
        }
        self.current = current
        self.observation = LockedValue(observation)
    }

    deinit { observation.withLock { $0?.cancel() } }

    /// The registrations that serve the service now (one per name), in the order they began to.
    public var registrations: [ServiceRegistration] { current.withLock { $0 } }

    /// Stops following the service; ``registrations`` keeps what it had.
    public func cancel() {
        observation.withLock { observation in
            observation?.cancel()
            observation = nil
        }
    }
}
