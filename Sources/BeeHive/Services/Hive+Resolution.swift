internal import _BeeHiveDiscovery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Hive {
    /// The instance for `key` (found through `typeKey` first, when given), with the entry and, for a
    /// shared instance, the generation of the entry's slot it came from. Never holds the lock while user
    /// code (a type lookup, `isSingleton`, `init`, a factory) runs.
    func instance(
        for key: RegistrationKey, typeKey: TypeKey?, shouldCache: Bool, entry fixed: ServiceEntry? = nil
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
    enum Attempt {
        case done(Made, ServiceEntry, cachedGeneration: Int?)
        case wait(CreationTicket)
        case retry
    }

    /// One attempt at the instance for `key` (of `fixed`, when given: a registration that may wait behind the one
    /// serving `key`); waiting for another thread is the caller's, blocking or not.
    ///
    /// Under the lock, only the registry's answers: the entry (``RegistryState/entry(serving:typeKey:fixed:)``) and
    /// what its shared-instance slot holds (``ServiceEntry/visitSlot()``); the instance is made outside it.
    func attempt(
        for key: RegistrationKey, typeKey: TypeKey?, shouldCache: Bool, entry fixed: ServiceEntry? = nil
    ) throws(HiveError) -> Attempt {
        TypedRecords.bindPending()  // accessors are foreign code: called before the lock (the miss's hints read them)
        let found: Found = state.withLock { state in
            guard let entry = state.entry(serving: key, typeKey: typeKey, fixed: fixed) else {
                return .missing(state.miss(for: key, type: typeKey?.type))
            }
            guard shouldCache else { return .create(entry, entry.provider) }
            switch entry.visitSlot() {
            case .ready(let instance, let boxed, let generation):
                return .ready(Made(instance: instance, boxed: boxed), entry, generation: generation)
            case .wait(let ticket): return .wait(ticket)
            case .cycle: return .cycle(entry)
            case .empty: return .create(entry, entry.provider)
            }
        }
        switch consume found {
        case .ready(let made, let entry, let generation):
            return .done(made, entry, cachedGeneration: generation)
        case .wait(let ticket):
            return .wait(ticket)
        case .cycle(let entry):
            throw failedResolve(.cyclicDependency(entry.registration))
        case .missing(let miss):
            throw failedResolve(.serviceNotFound(key, miss))
        case .create(let entry, let provider):
            do throws(HiveError) {
                return try create(entry, provider, typeKey: typeKey, shouldCache: shouldCache)
            } catch {
                throw failedResolve(error)
            }
        }
    }

    /// What the registry said of a request, under its lock (one flat enum: each level of payload would be copied
    /// again on the way out of the lock).
    private enum Found {
        case ready(Made, ServiceEntry, generation: Int)
        case wait(CreationTicket)
        case cycle(ServiceEntry)
        case create(ServiceEntry, Provider)
        case missing(RegistryState.Miss)
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
        let claimed = state.withLock { _ in entry.claim() }
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
                let waited = entry.keep(instance.instance, boxed: instance.boxed)
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
                let origin = origin(ofImage: registration.source.imageID)
                if let typed = TypedRecords.implementation(named: name, service: service),
                    let implementation = typed.implementation
                {
                    resolved = .implementation(implementation, boxes: typed.services)
                    arguments["from"] = .string("typed record")
                } else if let origin,
                    let implementation = Conformances.implementation(
                        named: name, writtenIn: origin, path: bindingPath, for: self)
                {
                    resolved = .implementation(implementation, boxes: .none)
                    arguments["from"] = .string("conformance record")
                } else if let type = TypeLookup.type(named: name, for: self, writtenIn: origin) {
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
            if let service, let make = entry.maker(for: service, in: boxes) {
                let (instance, boxed) = make(singleton)
                return Made(instance: instance, boxed: TypedBox(type: service, object: boxed))
            }
            // Asked for another service of the record (or by name: no box to make and drop, which for a key's box
            // would name its service to destroy it).
            let instance =
                service.flatMap { _ in (entry.annotated?.make ?? boxes.anyMaker)?(singleton).instance }
                ?? (singleton ? type._sharedOrNewInstance() : type.init())
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
