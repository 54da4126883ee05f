extension Hive {
    /// Calls `handler` for each change of the registrations that serve `service`: first `added` for each one that
    /// serves it now, then `added`, `removing` and `removed` as registrations come and go (from records, files, code
    /// and plugins), one event at a time, in the order the registry changed, on a queue of the hive's own.
    ///
    /// `removing` comes before a plugin's registration stops being served
    /// (``Hive/Plugins-swift.struct/retire(_:drainTimeout:)``, ``Hive/Plugins-swift.struct/upgrade(_:to:options:)``):
    /// the retire waits until the handlers returned, at most its drain timeout, then reports the handler that had not
    /// and goes on. A registration whose image was unloaded with `dlclose` only gets `removed`.
    ///
    /// ```swift
    /// let observation = Hive.shared.observe(PriceService.self) { event in
    ///     logger.info("\(event)")
    /// }
    /// // …
    /// observation.cancel()
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol.
    ///   - fileID: Where the observer is added, named when its handler holds a retire up; leave the default.
    ///   - line: The line of `fileID`; leave the default.
    ///   - handler: Called with each event; it must not block for long: later events wait for it.
    /// - Returns: The observation; ``ServiceObservation/cancel()`` ends it.
    @discardableResult
    public func observe<Service>(
        _ service: Service.Type, fileID: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (ServiceEvent) -> Void
    ) -> ServiceObservation {
        observe(named: TypeLookup.name(of: service), site: "\(fileID):\(line)", replaying: true, handler)
    }

    /// The changes of the registrations that serve `service`, as an asynchronous sequence: the events
    /// ``observe(_:fileID:line:_:)-(Service.Type,_,_,_)`` delivers. The sequence ends when the task iterating it is
    /// cancelled.
    ///
    /// ```swift
    /// for await event in Hive.shared.events(for: PriceService.self) {
    ///     logger.info("\(event)")
    /// }
    /// ```
    /// `removing` is handed to the sequence before the registration stops being served; what the loop does with it
    /// may run later. A use that must end before its plugin leaves takes a lease (`withService(_:)`).
    public func events<Service>(
        for service: Service.Type, fileID: String = #fileID, line: Int = #line
    ) -> AsyncStream<ServiceEvent> {
        events(named: TypeLookup.name(of: service), site: "\(fileID):\(line)")
    }

    /// The events of the service named `service`, observed from `site`.
    private func events(named service: String, site: String) -> AsyncStream<ServiceEvent> {
        AsyncStream { continuation in
            let observation = observe(named: service, site: site, replaying: true) { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    /// ``observe(_:fileID:line:_:)-(Service.Type,_,_,_)`` for the service `key` stands for, by the key's name of it.
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - fileID: Where the observer is added; leave the default.
    ///   - line: The line of `fileID`; leave the default.
    ///   - handler: Called with each event; it must not block for long.
    /// - Returns: The observation; ``ServiceObservation/cancel()`` ends it.
    @discardableResult
    public func observe<Key: ServiceKey>(
        _ key: Key.Type, fileID: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (ServiceEvent) -> Void
    ) -> ServiceObservation {
        observe(named: key.serviceName, site: "\(fileID):\(line)", replaying: true, handler)
    }

    /// ``events(for:fileID:line:)-(Service.Type,_,_)`` for the service `key` stands for, by the key's name of it.
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - fileID: Where the observer is added; leave the default.
    ///   - line: The line of `fileID`; leave the default.
    /// - Returns: The events, until the task iterating them is cancelled.
    public func events<Key: ServiceKey>(
        for key: Key.Type, fileID: String = #fileID, line: Int = #line
    ) -> AsyncStream<ServiceEvent> {
        events(named: key.serviceName, site: "\(fileID):\(line)")
    }

    /// Adds an observer of the service named `service` and, in the same step under the registry's lock, reads the
    /// registrations that serve it now: queued for the observer as `added` when `replaying`, and handed to `start`
    /// (which runs under the lock, before any event can reach the handler).
    func observe(
        named service: String, site: String, replaying: Bool,
        start: ([ServiceRegistration]) -> Void = { _ in }, _ handler: @escaping @Sendable (ServiceEvent) -> Void
    ) -> ServiceObservation {
        let observers = serviceObservers
        return state.withLock { state in
            state.observers = observers
            let token = observers.add(.init(service: service, site: site, handler: handler))
            let current = state.registrations(serving: service)
            start(current)
            if replaying { observers.post(.added, current, only: token) }
            return ServiceObservation(observers: observers, token: token)
        }
    }
}

/// An observation of a service's registrations (``Hive/observe(_:fileID:line:_:)-(Service.Type,_,_,_)``).
public struct ServiceObservation: Sendable {
    let observers: ServiceObservers
    let token: Int

    /// Ends the observation: its handler gets no event queued after this returns.
    public func cancel() { observers.remove(token) }
}
