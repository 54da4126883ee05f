internal import _BeeHiveDiscovery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Hive {
    /// Creates, or returns the shared instance of, the implementation of `service` (BeeHive's `createService:`).
    ///
    /// A singleton implementation (``ServiceImplementation/isSingleton``, or a factory registered with
    /// ``ServiceScope/singleton``) gives one shared instance, created on the first request; other
    /// implementations give a new instance per call. The implementation's type is looked up by name
    /// on the first request and kept.
    ///
    /// ```swift
    /// let tracker = try Hive.shared.createService(UserTrackService.self)
    /// let fast = try Hive.shared.createService(Cache.self, name: "memory")
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol.
    ///   - name: The registration's name, for services registered under several names.
    ///   - shouldCache: Whether to use and fill the shared-instance cache (BeeHive's `shouldCache`).
    ///     With `false`, even a singleton implementation gives an instance that is not kept.
    /// - Returns: An instance that conforms to `service`.
    /// - Throws: ``HiveError`` with code `serviceNotFound`, `unknownType`, `notAnImplementation`,
    ///   `doesNotConform`, `cyclicDependency` or `creationFailed`, naming where the registration came from.
    @inlinable
    public func createService<Service>(
        _ service: Service.Type, name: String? = nil, shouldCache: Bool = true
    )
        throws(HiveError) -> Service
    {
        // Inlined and specialized in the caller: a shared instance asked for by this type before is one lock, one
        // dictionary probe and no cast (the box under this type's key holds a `Service`, see `SharedInstance`).
        if shouldCache, let box = sharedInstance(ObjectIdentifier(service), name: name) {
            return box.value(as: Service.self)
        }
        return try makeService(service, name: name, shouldCache: shouldCache)
    }

    /// The shared instance already made for `type` (and `name`), boxed as that type; `nil` when there is none yet,
    /// or its slot changed since (a removed instance, a withdrawn registration).
    @usableFromInline
    func sharedInstance(_ type: ObjectIdentifier, name: String?) -> TypedInstance? {
        state.withLock { $0.sharedInstances.box(for: type, name: name) }
    }

    /// ``createService(_:name:shouldCache:)`` past its cached path: finds the registration, makes or waits for the
    /// instance, and remembers a shared one for the cached path.
    @usableFromInline
    func makeService<Service>(
        _ service: Service.Type, name: String?, shouldCache: Bool
    ) throws(HiveError) -> Service {
        let lookup = TypedLookup(service, name: name, in: self)
        if shouldCache, let cached = lookup.cached {
            return cached.value(as: Service.self)
        }
        let (made, entry, generation) = try self.instance(
            for: lookup.key, typeKey: lookup.typeKey, shouldCache: shouldCache)
        return try lookup.typed(made, as: service, entry, generation, in: self)
    }

    /// Creates, or returns the shared instance of, the implementation of `service`, without blocking a thread:
    /// the way to ask for a service from async code.
    ///
    /// ``createService(_:name:shouldCache:)`` waits for a singleton that another thread is creating by blocking;
    /// in a task that would hold one of the concurrency pool's few threads. This waits by suspending.
    ///
    /// ```swift
    /// func modInit(_ context: ModuleContext) async throws {
    ///     let accounts = try await context.hive.service(AccountService.self)
    /// }
    /// ```
    /// - Parameters:
    ///   - service: The service, usually a protocol: `UserTrackService.self`.
    ///   - name: The registration's name, for a service registered several times.
    ///   - shouldCache: Whether to use and fill the shared-instance cache (BeeHive's `shouldCache`).
    /// - Returns: An instance that conforms to `service`.
    /// - Throws: ``HiveError`` as for ``createService(_:name:shouldCache:)``.
    public func service<Service>(
        _ service: Service.Type, name: String? = nil, shouldCache: Bool = true
    ) async throws(HiveError) -> Service {
        if shouldCache, let box = sharedInstance(ObjectIdentifier(service), name: name) {
            return box.value(as: Service.self)
        }
        let lookup = TypedLookup(service, name: name, in: self)
        if shouldCache, let cached = lookup.cached {
            return cached.value(as: Service.self)
        }
        while true {
            switch try attempt(for: lookup.key, typeKey: lookup.typeKey, shouldCache: shouldCache) {
            case .done(let made, let entry, let generation):
                return try lookup.typed(made, as: service, entry, generation, in: self)
            case .wait(let ticket): await ticket.wait()
            case .retry: continue
            }
        }
    }

    /// Creates, or returns the shared instance of, the implementation of the service named `service`.
    ///
    /// - Parameters:
    ///   - service: The service's module-qualified name, e.g. `App.UserTrackService`.
    ///   - name: The registration's name.
    ///   - shouldCache: Whether to use and fill the shared-instance cache.
    /// - Returns: The instance.
    /// - Throws: ``HiveError`` as for ``createService(_:name:shouldCache:)``.
    public func createService(
        named service: String, name: String? = nil, shouldCache: Bool = true
    )
        throws(HiveError) -> Any
    {
        try instance(for: ServiceKey(service: service, name: name), typeKey: nil, shouldCache: shouldCache).made
            .instance
    }

    /// Whether an implementation is registered for `service` (and `name`).
    public func hasService<Service>(_ service: Service.Type, name: String? = nil) -> Bool {
        registration(for: TypeLookup.name(of: service), name: name) != nil
    }

    /// The registration that serves the service named `service` (and `name`), if any.
    public func registration(for service: String, name: String? = nil) -> ServiceRegistration? {
        state.withLock { $0.entry(for: ServiceKey(service: service, name: name))?.registration }
    }

    /// Forgets the shared instance of `service` (BeeHive's `removeServiceWithServiceName:`); the next
    /// request creates a new one. The registration stays.
    public func removeServiceInstance<Service>(_ service: Service.Type, name: String? = nil) {
        removeServiceInstance(named: TypeLookup.name(of: service), name: name)
    }

    /// Forgets the shared instance of the service named `service`; the registration stays.
    public func removeServiceInstance(named service: String, name: String? = nil) {
        let removed: Any? = state.withLock { state in
            guard let entry = state.entry(for: ServiceKey(service: service, name: name)),
                case .ready(let instance) = entry.slot
            else { return nil }
            entry.slot = .empty
            return instance
        }
        _ = removed  // released here, outside the lock: a deinit is user code
    }

    // MARK: - Resolution

    private enum Step {
        case ready(Made, ServiceEntry, generation: Int)
        case wait(CreationTicket)
        case create(ServiceEntry, Provider)
        case cycle(ServiceEntry)
        case missing(available: [String], unqualified: ServiceRegistration?, hints: String)
    }

    /// The instance for `key` (found through `typeKey` first, when given), with the entry and, for a
    /// shared instance, the generation of the entry's slot it came from. Never holds the lock while user
    /// code (a type lookup, `isSingleton`, `init`, a factory) runs.
    func instance(
        for key: ServiceKey, typeKey: TypeKey?, shouldCache: Bool, entry fixed: ServiceEntry? = nil
    ) throws(HiveError)
        -> (made: Made, entry: ServiceEntry, cachedGeneration: Int?)
    {
        while true {
            switch try attempt(for: key, typeKey: typeKey, shouldCache: shouldCache, entry: fixed) {
            case .done(let made, let entry, let generation): return (made, entry, generation)
            case .wait(let ticket): ticket.wait()
            case .retry: continue
            }
        }
    }

    /// What one attempt at an instance gave: the instance, a singleton being created on another thread to wait
    /// for, or a race lost to another thread (try again).
    private enum Attempt {
        case done(Made, ServiceEntry, cachedGeneration: Int?)
        case wait(CreationTicket)
        case retry
    }

    /// One attempt at the instance for `key` (of `fixed`, when given: a registration that may wait behind the one
    /// serving `key`); waiting for another thread is the caller's, blocking or not.
    private func attempt(
        for key: ServiceKey, typeKey: TypeKey?, shouldCache: Bool, entry fixed: ServiceEntry? = nil
    ) throws(HiveError) -> Attempt {
        TypedRecords.bindPending()  // accessors are foreign code: called before the lock (the miss's hints read them)
        let step: Step = state.withLock { state in
            // No closures over `state` here: each would copy the tables it reads (their arrays' retains and releases).
            var found = fixed
            var indexed = false
            if found == nil, let typeKey {
                found = state.typeIndex[typeKey]
                indexed = found != nil
            }
            if found == nil { found = state.entry(for: key) }
            guard let entry = found else {
                return .missing(
                    available: state.serviceOrder.prefix(20).map(\.displayName),
                    unqualified: state.unqualifiedEntry(for: key)?.registration,
                    hints: state.missingHints(for: key, type: typeKey?.type))
            }
            if let typeKey, !indexed { state.typeIndex.set(entry, for: typeKey, expected: state.services.count) }
            if shouldCache {
                switch entry.slot {
                case .ready(let instance):
                    return .ready(
                        Made(instance: instance, boxed: entry.typedInstance), entry, generation: entry.generation)
                case .creating(let thread, let ticket):
                    if pthread_equal(thread, pthread_self()) != 0 { return .cycle(entry) }
                    if let ticket { return .wait(ticket) }
                    let first = CreationTicket()  // the first thread to wait makes what the others wait on
                    entry.slot = .creating(thread: thread, ticket: first)
                    return .wait(first)
                case .empty: break
                }
            }
            return .create(entry, entry.provider)
        }
        switch step {
        case .ready(let made, let entry, let generation):
            return .done(made, entry, cachedGeneration: generation)
        case .wait(let ticket):
            return .wait(ticket)
        case .cycle(let entry):
            throw failedResolve(
                HiveError(
                    .cyclicDependency,
                    "expected the initializer of \(entry.registration.implementation) not to ask for "
                        + "\(entry.registration.displayName) while it is being created; it did, on the same thread",
                    source: entry.registration.source))
        case .missing(let available, let unqualified, let hints):
            let list = available.isEmpty ? "none" : available.joined(separator: ", ")
            let hint = unqualified.map { registration in
                " (\(registration.displayName) is registered without its module by \(registration.source): "
                    + "name services module-qualified, as \(key.service))"
            }
            throw failedResolve(
                HiveError(
                    .serviceNotFound,
                    "expected a registration for \(key.displayName); found none\(hint ?? "").\(hints) Registered "
                        + "services: " + list,
                    source: unqualified?.source))
        case .create(let entry, let provider):
            do throws(HiveError) {
                return try create(entry, provider, typeKey: typeKey, shouldCache: shouldCache)
            } catch {
                throw failedResolve(error)
            }
        }
    }

    /// `error`, counted as a failed resolve (`beehive.resolves`, outcome `failed`, by code).
    private func failedResolve(_ error: HiveError) -> HiveError {
        telemetry.count("beehive.resolves", [("outcome", "failed"), ("code", "\(error.code)")])
        return error
    }

    /// Makes an instance of `entry`'s implementation: the shared one, once, when it is a singleton and
    /// `shouldCache`; counted in `beehive.resolves` (outcome `created`) and, for a shared one, in
    /// `beehive.singletons.created`.
    private func create(
        _ entry: ServiceEntry, _ provider: Provider, typeKey: TypeKey?, shouldCache: Bool
    ) throws(HiveError) -> Attempt {
        let made = try resolve(provider, of: entry, as: typeKey?.type)
        let isSingleton: Bool
        switch made {
        case .implementation(let type, _): isSingleton = type.isSingleton
        case .factory(let scope, _): isSingleton = scope == .singleton
        default: isSingleton = false
        }
        guard isSingleton && shouldCache else {
            let instance = try make(made, entry, singleton: isSingleton, as: typeKey?.type)
            telemetry.countCreated(shared: false)
            return .done(instance, entry, cachedGeneration: nil)
        }
        let claimed = state.withLock { _ in
            guard case .empty = entry.slot else { return false }
            entry.slot = .creating(thread: pthread_self(), ticket: nil)
            return true
        }
        guard claimed else { return .retry }
        do {
            // The shared instance's creation, once: the rest of a first use.
            let instance = try timeline.span("service.create", category: "binding") {
                (arguments: inout HiveTimeline.SpanArguments) throws(HiveError) -> Made in
                if arguments.isRecording {
                    arguments["service"] = .string(entry.registration.displayName)
                    arguments["implementation"] = .string(entry.registration.implementation)
                }
                return try make(made, entry, singleton: true, as: typeKey?.type)
            }
            let (generation, waited) = state.withLock { _ in
                let waited = entry.slot.ticket
                entry.slot = .ready(instance.instance)
                entry.typedInstance = instance.boxed
                return (entry.generation, waited)
            }
            waited?.finish()
            telemetry.countCreated(shared: true)
            return .done(instance, entry, cachedGeneration: generation)
        } catch {
            let waited = state.withLock { _ in
                let waited = entry.slot.ticket
                entry.slot = .empty
                return waited
            }
            waited?.finish()
            throw error
        }
    }

    /// Looks up a type name once; remembers the type, or the error. `service`, the type the service is asked for
    /// as, finds a typed record's implementation without hashing its name.
    func resolve(
        _ provider: Provider, of entry: ServiceEntry, as service: ObjectIdentifier? = nil
    ) throws(HiveError) -> Provider {
        switch provider {
        case .implementation, .factory: return provider
        case .unresolvable(let unresolvable):
            // An unknown type may come with an image loaded since (a plugin); look again then.
            guard let loadedImages = unresolvable.loadedImages, ImageScanner.loadedImageCount != loadedImages else {
                throw unresolvable.error
            }
            return try resolve(.typeName(entry.registration.implementation), of: entry, as: service)
        case .typeName(let name):
            // The binding of a name to a type, once per registration: the slow path of a first use.
            return try timeline.span("service.bind", category: "binding") {
                (arguments: inout HiveTimeline.SpanArguments) throws(HiveError) -> Provider in
                if arguments.isRecording {
                    arguments["service"] = .string(entry.registration.displayName)
                    arguments["implementation"] = .string(name)
                }
                let resolved: Provider
                let registration = entry.registration
                if let typed = TypedRecords.implementation(named: name, service: service),
                    let implementation = typed.implementation
                {
                    resolved = .implementation(implementation, boxes: typed.services)
                    arguments["from"] = .string("typed record")
                } else if let type = TypeLookup.type(
                    named: name, for: self, writtenIn: origin(ofImage: registration.source.imageID))
                {
                    if let implementation = Conformances.implementation(type, path: bindingPath) {
                        resolved = .implementation(implementation, boxes: .none)
                        arguments["from"] = .string("type lookup")
                    } else {
                        resolved = .unresolvable(
                            Unresolvable(
                                HiveError(
                                    .notAnImplementation,
                                    "expected \(name), the implementation of \(registration.displayName), to conform to "
                                        + "ServiceImplementation (to have init() and be created by name); it does not",
                                    source: registration.source), loadedImages: nil))
                    }
                } else {
                    resolved = .unresolvable(
                        Unresolvable(
                            .unknownType(
                                name, role: "the implementation of \(registration.displayName)",
                                source: registration.source),
                            loadedImages: ImageScanner.loadedImageCount))
                }
                state.withLock { _ in entry.provider = resolved }
                if case .unresolvable(let unresolvable) = resolved {
                    record([Diagnostic(.error, unresolvable.error)])
                    throw unresolvable.error
                }
                return resolved
            }
        }
    }

    /// Where the types a registration names are looked for first: the loaded image its annotation record was read
    /// from (`id`, from its source); for a file's entry or code, the main program (where a program's own modules
    /// are, unless it put them in shared libraries).
    private func origin(ofImage id: UInt64?) -> TypeLookup.Origin? {
        if let id, id != 0 {
            return scanner?.address(ofImage: id).map { TypeLookup.Origin(id: id, address: $0) }
        }
        return TypeLookup.Origin.mainProgram
    }

    /// Makes an instance; boxes it as the service `service` when the provider knows how.
    private func make(
        _ provider: Provider, _ entry: ServiceEntry, singleton: Bool, as service: ObjectIdentifier?
    ) throws(HiveError) -> Made {
        switch provider {
        case .implementation(let type, let boxes):
            if let service, let make = boxes.maker(for: service) {
                let (instance, boxed) = make(singleton)
                return Made(instance: instance, boxed: TypedBox(type: service, object: boxed))
            }
            let instance =
                boxes.anyMaker?(singleton).instance ?? (singleton ? type._sharedOrNewInstance() : type.init())
            return Made(instance: instance, boxed: nil)
        case .factory(_, let factory):
            do {
                return try factory(self)
            } catch let error as HiveError {
                throw error
            } catch {
                throw HiveError(
                    .creationFailed,
                    "expected the factory of \(entry.registration.displayName) to return an "
                        + "instance; it threw \(error)", source: entry.registration.source)
            }
        case .typeName, .unresolvable:
            preconditionFailure("resolved before use")
        }
    }
}

extension HiveError {
    /// The implementation of `registration` does not conform to the service named `service`; says so, and when the
    /// protocol is defined by two loaded images (a plugin packaged with its own copy of the host's API), why.
    static func doesNotConform(_ registration: ServiceRegistration, service: String) -> HiveError {
        let images = TypeLookup.imagesDefiningProtocol(named: service)
        let twice =
            images.isEmpty
            ? ""
            : ". \(service) is defined by \(images.count) loaded images (\(images.joined(separator: ", "))): each has "
                + "its own copy of the protocol, and a type conforms to one copy only. Link the module that declares "
                + "it once, as a shared library that the host and its plugins both load (see Docs/Linking.md, \"A module "
                + "linked twice\")"
        return HiveError(
            .doesNotConform,
            "expected \(registration.implementation) to conform to \(service); it does not\(twice)",
            source: registration.source)
    }
}

extension ServiceKey {
    var displayName: String { name.map { "\(service)[\($0)]" } ?? service }
}

extension ServiceEntry {
    /// The cached instance; read under the hive's lock.
    var cachedInstance: Any? {
        if case .ready(let instance) = slot { return instance }
        return nil
    }
}

extension RegistryState {
    /// For a request that found no registration: the closest registered names, a Swift annotation that named the
    /// service through a typealias, the images that carry records, and a hint at an annotation target that was not
    /// linked when no registration names a type of the service's module.
    func missingHints(for key: ServiceKey, type: ObjectIdentifier?) -> String {
        var hints = withdrawn[key].map { " \($0)." } ?? ""
        hints += ClosestNames.hint(
            ClosestNames.closestServices(to: key.service, among: Set(services.keys.map(\.service))))
        let registrations = services.values.map(\.registration)
        // A Swift annotation that named the service through a typealias: its record carries the alias's name.
        for implementation in type.map(TypedRecords.implementationNames(annotatedWith:)) ?? [] {
            for registration in registrations
            where registration.implementation == implementation && registration.service != key.service
                && DiagnosticHints.isSwiftAnnotation(registration)
            {
                hints +=
                    " \(implementation) is annotated with this service, but its record names it \(registration.service) "
                    + "(\(registration.source)): a typealias gives the alias's name; name the protocol itself."
            }
        }
        let images = Set(registrations.compactMap { $0.source.sectionName == nil ? nil : $0.source.imagePath })
        hints += " Images with records: \(images.isEmpty ? "none" : images.sorted().joined(separator: ", "))."
        let module = key.service.prefix { $0 != "." } + "."
        if !registrations.contains(where: { $0.service.hasPrefix(module) || $0.implementation.hasPrefix(module) }) {
            hints +=
                " No registration names a type of module \(module.dropLast()): if its services are annotated "
                + "(BH_SERVICE in a C target, or @BeeHiveService), check that the target is linked into this "
                + "program; a target of records that no code refers to is left out by the linker (see BH_ANCHOR "
                + "in Docs/Linking.md, \"Records that nothing refers to\")."
        }
        return hints
    }

    /// The entry for `key`. Names match exactly: a request for `App.Tracker` is not served by a registration
    /// of `Tracker`, which could be another module's service (``unqualifiedEntry(for:)`` finds it for the error).
    func entry(for key: ServiceKey) -> ServiceEntry? { services[key] }

    /// The registration of `key`'s service without its module (`Tracker` for `App.Tracker`), as BeeHive's
    /// Objective-C files name protocols: named in the error when `key` is not found.
    func unqualifiedEntry(for key: ServiceKey) -> ServiceEntry? {
        guard let dot = key.service.firstIndex(of: ".") else { return nil }
        return services[ServiceKey(service: String(key.service[key.service.index(after: dot)...]), name: key.name)]
    }
}

/// A request for a service by type: its keys, and the shared instance already boxed as its type, if any.
///
/// Not generic: the path past the cached one runs unspecialized (across the module boundary), where each generic
/// value (a `Service?`, a tuple of `Service`, a generic struct) makes the runtime instantiate metadata for every
/// service type at its first use. The box is compared by type identifier and downcast, not cast.
private struct TypedLookup {
    let typeKey: TypeKey
    let key: ServiceKey
    /// The shared instance boxed as the service, if there is one.
    let cached: TypedInstance?

    init(_ service: any Any.Type, name: String?, in hive: Hive) {
        TypedRecords.bindPending()  // accessors are foreign code: called before the lock
        let typeKey = TypeKey(type: ObjectIdentifier(service), name: name)
        var indexed: ServiceEntry?
        var box: TypedInstance?
        hive.state.withLock { state in
            guard let entry = state.typeIndex[typeKey] else { return }
            indexed = entry
            guard let typed = entry.typedInstance, typed.type == typeKey.type else { return }
            // Boxed as this very type: the cached path may return it from now on.
            state.sharedInstances.set(
                SharedInstance(entry: entry, generation: entry.generation, box: typed.object), for: typeKey,
                expected: state.services.count)
            box = typed.object
        }
        self.typeKey = typeKey
        cached = box
        key =
            indexed.map { ServiceKey(service: $0.registration.service, name: $0.registration.name) }
            ?? ServiceKey(
                service: TypedRecords.serviceName(of: typeKey.type) ?? TypeLookup.name(of: service), name: name)
    }

    /// The instance as `Service`; a shared one is kept boxed as `Service` for the cached path.
    ///
    /// An instance the provider boxed as `Service` (a typed factory, a typed record) is taken as it is; any other is
    /// assembled from the witness table of its module's conformance record (``Conformances``), and only when that
    /// cannot be done, cast (the runtime then scans every conformance record of the process).
    func typed<Service>(
        _ made: Made, as service: Service.Type, _ entry: ServiceEntry, _ cachedGeneration: Int?, in hive: Hive
    ) throws(HiveError)
        -> Service
    {
        let box: TypedBox
        if let boxed = made.boxed, boxed.type == typeKey.type {
            box = boxed
        } else if let typed = Conformances.box(made.instance, as: Service.self, path: hive.bindingPath) {
            box = TypedBox(type: typeKey.type, object: typed)
        } else {
            throw HiveError.doesNotConform(entry.registration, service: key.service)
        }
        if let cachedGeneration {
            hive.state.withLock { state in
                // A registration withdrawn while its instance was being made (a plugin upgraded meanwhile) keeps
                // nothing: the cache serves the registration that replaced it.
                guard entry.generation == cachedGeneration, !entry.isWithdrawn else { return }
                entry.typedInstance = box
                state.sharedInstances.set(
                    SharedInstance(entry: entry, generation: cachedGeneration, box: box.object), for: typeKey,
                    expected: state.services.count)
            }
        }
        return box.object.value(as: Service.self)
    }
}
