extension Hive {
    /// Every implementation of `service` whose properties satisfy `predicate`, under every name: for each name the
    /// one serving it and those of lower rank that wait behind it, highest rank first (the earliest first among
    /// equal ranks), each created or shared as ``createService(_:name:shouldCache:)-(Service.Type,_,_)`` would.
    ///
    /// Ranks and properties come with a registration: `BH_RANKED_SERVICE` in C, `@BeeHiveService(rank:properties:)`,
    /// a file's `rank` and `properties`, or
    /// ``register(_:name:scope:rank:properties:fileID:line:factory:)-(Service.Type,_,_,_,_,_,_,_)``.
    ///
    /// ```swift
    /// let european = try hive.services(PriceService.self) { $0["region"] == "eu" }
    /// let all = try hive.services(PriceService.self)
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol.
    ///   - predicate: Whether a registration's properties qualify; called without any lock held. Every
    ///     registration qualifies when it is left out.
    /// - Returns: The instances, one per qualifying registration; empty when none qualifies.
    /// - Throws: ``HiveError`` as ``createService(_:name:shouldCache:)-(Service.Type,_,_)`` does, for the first
    ///   registration whose instance cannot be made.
    public func services<Service>(
        _ service: Service.Type, where predicate: ([String: String]) -> Bool = { _ in true }
    ) throws(HiveError) -> [Service] {
        let name = TypeLookup.name(of: service)
        let entries = state.withLock { state in
            state.serviceOrder.filter { $0.registration.service == name }.flatMap { serving -> [ServiceEntry] in
                [serving] + (state.shadowedServices[serving.registration.key]?.queue.map(\.element) ?? [])
            }
        }
        let qualifying = entries.enumerated()
            .filter { predicate($0.element.registration.properties) }
            .sorted { ($0.element.registration.rank, -$0.offset) > ($1.element.registration.rank, -$1.offset) }
        var instances: [Service] = []
        for (_, entry) in qualifying {
            let registration = entry.registration
            let made = try instance(for: registration.key, typeKey: nil, shouldCache: true, entry: entry).made
            if let boxed = made.boxed, boxed.type == ObjectIdentifier(Service.self) {
                instances.append(boxed.object.value(as: Service.self))
            } else if let instance = made.instance as? Service {
                instances.append(instance)
            } else {
                throw HiveError.doesNotConform(registration, service: name)
            }
        }
        return instances
    }
}
