#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Hive {
    /// Runs `body` with the service's instance under a lease: a plugin that serves it is not retired or upgraded
    /// away while `body` runs.
    ///
    /// ``Hive/Plugins-swift.struct/retire(_:drainTimeout:)`` and ``Hive/Plugins-swift.struct/upgrade(_:to:options:)``
    /// wait until the leases of the plugin they withdraw end, up to a deadline, then fail with
    /// ``PluginError/Code/pluginBusy`` naming the holders, and the plugin stays. A lease asked for meanwhile waits for
    /// the outcome: it gets the old version when the plugin stays, the next one when it left. When a retire returns,
    /// no lease of the retired plugin is open. An instance kept after `body` returns is the caller's, lease or not.
    ///
    /// ```swift
    /// let price = try Hive.shared.withService(PriceService.self) { prices in
    ///     prices.price(of: item)
    /// }
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol.
    ///   - name: The registration's name, for services registered under several names.
    ///   - fileID: Where the lease is taken, named by a retire it holds up; leave the default.
    ///   - line: The line of `fileID`; leave the default.
    ///   - body: Uses the instance; the lease ends when it returns.
    /// - Returns: What `body` returns.
    /// - Throws: The errors of ``createService(_:name:shouldCache:)-(Service.Type,_,_)``, and what `body` throws.
    public func withService<Service, Result>(
        _ service: Service.Type, name: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ body: (Service) throws -> Result
    ) throws -> Result {
        try leased(TypeLookup.name(of: service), name: name, holder: "\(fileID):\(line)") {
            try body(try createService(service, name: name))
        }
    }

    /// `withService(_:)` for asynchronous code: while the service's plugin is being drained, the
    /// task sleeps (a millisecond at a time) instead of blocking its thread.
    public func withService<Service, Result>(
        _ service: Service.Type, name: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ body: (Service) async throws -> Result
    ) async throws -> Result {
        try await leased(TypeLookup.name(of: service), name: name, holder: "\(fileID):\(line)") {
            try await body(try await self.service(service, name: name))
        }
    }

    /// Runs `body` with the instance of the service `key` stands for under a lease, as the form by type does: the
    /// lease by the key's name of the service, the instance by the key.
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - name: The registration's name.
    ///   - fileID: Where the lease is taken; leave the default.
    ///   - line: The line of `fileID`; leave the default.
    ///   - body: Uses the instance; the lease ends when it returns.
    /// - Returns: What `body` returns.
    /// - Throws: The errors of ``createService(_:name:shouldCache:)-(Key.Type,_,_)``, and what `body` throws.
    public func withService<Key: ServiceKey, Result>(
        _ key: Key.Type, name: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ body: (Key.Service) throws -> Result
    ) throws -> Result {
        try leased(key.serviceName, name: name, holder: "\(fileID):\(line)") {
            try body(try createService(key, name: name))
        }
    }

    /// The form by key of `withService(_:name:fileID:line:_:)` for asynchronous code.
    ///
    /// - Parameters:
    ///   - key: The service's key.
    ///   - name: The registration's name.
    ///   - fileID: Where the lease is taken; leave the default.
    ///   - line: The line of `fileID`; leave the default.
    ///   - body: Uses the instance; the lease ends when it returns.
    /// - Returns: What `body` returns.
    /// - Throws: The errors of ``createService(_:name:shouldCache:)-(Key.Type,_,_)``, and what `body` throws.
    public func withService<Key: ServiceKey, Result>(
        _ key: Key.Type, name: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ body: (Key.Service) async throws -> Result
    ) async throws -> Result {
        try await leased(key.serviceName, name: name, holder: "\(fileID):\(line)") {
            try await body(try await self.service(key, name: name))
        }
    }

    /// Runs `use` under a lease on the image that serves the service named `service` (and `name`), blocking while
    /// that image is being drained.
    private func leased<Result>(
        _ service: String, name: String?, holder: String, _ use: () throws -> Result
    ) throws -> Result {
        while true {
            switch lease(service, name: name, holder: holder, waits: true) {
            case .leased(let lease):
                defer { lease.map(leases.release) }
                return try use()
            case .again:
                continue
            }
        }
    }

    /// ``leased(_:name:holder:_:)`` for asynchronous code: while the image is being drained, the task sleeps (a
    /// millisecond at a time) instead of blocking its thread.
    private func leased<Result>(
        _ service: String, name: String?, holder: String, _ use: () async throws -> Result
    ) async throws -> Result {
        while true {
            switch lease(service, name: name, holder: holder, waits: false) {
            case .leased(let lease):
                defer { lease.map(leases.release) }
                return try await use()
            case .again:
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    private enum LeaseStep {
        /// A lease on the image that serves the service now (nil: it is served by code or a file, never withdrawn,
        /// or not at all: the resolve says so).
        case leased(LeaseTable.Lease?)
        /// Look again (the image was withdrawn meanwhile, or is being drained and the caller does not block).
        case again
    }

    private func lease(_ service: String, name: String?, holder: String, waits: Bool) -> LeaseStep {
        guard let image = registration(for: service, name: name)?.source.imageID else { return .leased(nil) }
        switch leases.acquire(image: image, holder: holder, waits: waits) {
        case .leased(let lease):
            // Another image may serve it since the look-up (a rescan after a dlclose): then lease that one.
            if registration(for: service, name: name)?.source.imageID == image { return .leased(lease) }
            leases.release(lease)
            return .again
        case .withdrawn:
            sched_yield()
            return .again
        case .draining:
            return .again
        }
    }
}
