#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The key services are registered under: the service's name and the registration's name.
struct RegistrationKey: Hashable, TableKey {
    let service: String
    let name: String?

    var tableHash: UInt {
        guard let name else { return service.tableHash }
        return (service.tableHash &* 31 &+ name.tableHash) | 1
    }
}

extension ServiceRegistration {
    /// The key the registration is registered under.
    var key: RegistrationKey { RegistrationKey(service: service, name: name) }
}

/// The key of the typed-lookup index: the service type's identity and the registration's name.
struct TypeKey: Hashable {
    let type: ObjectIdentifier
    let name: String?
}

/// How a registration makes instances.
enum Provider {
    /// An implementation type known by name, not looked up yet.
    case typeName(String)
    /// An implementation type, and how to box its instances as the services a typed record annotated it with.
    case implementation(any ServiceImplementation.Type, boxes: ServiceBoxes)
    /// A factory closure.
    case factory(ServiceScope, @Sendable (Hive) throws -> Made)
    /// A type name that did not resolve; the error is kept so it is reported once.
    case unresolvable(Unresolvable)
}

/// Why a provider's type name did not resolve. A class: the error is large, and every provider would otherwise be
/// copied at its size on each look-up (an `indirect` case's box would make the runtime build the payload tuple's
/// metadata from its mangled name at a first use).
final class Unresolvable: Sendable {
    let error: HiveError
    /// An unknown type is looked up again after the loader loaded more images than this; nil: never again.
    let loadedImages: UInt64?

    init(_ error: HiveError, loadedImages: UInt64?) {
        self.error = error
        self.loadedImages = loadedImages
    }
}

/// An instance a provider made, and, when the compiler knew its service type, the instance boxed as that type: the
/// typed path takes it without a cast or a conformance look-up.
struct Made {
    let instance: Any
    let boxed: TypedBox?
}

/// A ``TypedInstance`` and the type of the value it holds, as an identifier: compared, not cast, by the unspecialized
/// path.
struct TypedBox {
    /// `ObjectIdentifier(Service.self)`.
    let type: ObjectIdentifier
    /// The box, holding a `Service`.
    let object: TypedInstance

    init<Service>(_ value: Service) {
        type = ObjectIdentifier(Service.self)
        object = TypedInstance(value)
    }

    init(type: ObjectIdentifier, object: TypedInstance) {
        self.type = type
        self.object = object
    }
}

/// The shared instance of a singleton registration.
enum InstanceSlot {
    case empty
    /// Being made by `thread`. `ticket` is what other threads wait on; the first one that has to wait makes it, so an
    /// uncontended creation allocates nothing. Whoever takes the slot out of this state finishes the ticket.
    case creating(thread: pthread_t, ticket: CreationTicket?)
    case ready(Any)

    /// The ticket of a creation that threads wait for, if any.
    var ticket: CreationTicket? {
        guard case .creating(_, let ticket) = self else { return nil }
        return ticket
    }
}

/// Marks an instance being created: other threads wait for it, the creating thread must not.
package final class CreationTicket: @unchecked Sendable {
    private let thread = pthread_self()
    /// The mutex that guards `finished` and `waiters`, and the condition blocking waiters wait on: one
    /// allocation, no dispatch object.
    private let sync = UnsafeMutablePointer<(mutex: pthread_mutex_t, condition: pthread_cond_t)>.allocate(capacity: 1)
    private var finished = false
    /// Async waiters' resumptions, called by ``finish()``. Closures, not `CheckedContinuation<Void, Never>`s: an array
    /// of those makes the runtime look up `Never: Error` (a scan of every conformance record) when it is first used.
    private var waiters: [@Sendable () -> Void] = []

    package init() {
        sync.initialize(to: (pthread_mutex_t(), pthread_cond_t()))
        pthread_mutex_init(&sync.pointee.mutex, nil)
        pthread_cond_init(&sync.pointee.condition, nil)
    }

    deinit {
        pthread_cond_destroy(&sync.pointee.condition)
        pthread_mutex_destroy(&sync.pointee.mutex)
        sync.deallocate()
    }

    /// Marks the instance made (or its creation failed): wakes every waiter.
    package func finish() {
        pthread_mutex_lock(&sync.pointee.mutex)
        finished = true
        pthread_cond_broadcast(&sync.pointee.condition)
        guard !waiters.isEmpty else {
            pthread_mutex_unlock(&sync.pointee.mutex)
            return
        }
        let waiting = waiters
        waiters = []
        pthread_mutex_unlock(&sync.pointee.mutex)
        for resume in waiting { resume() }
    }

    /// Blocks the calling thread until ``finish()``.
    package func wait() {
        pthread_mutex_lock(&sync.pointee.mutex)
        while !finished { pthread_cond_wait(&sync.pointee.condition, &sync.pointee.mutex) }
        pthread_mutex_unlock(&sync.pointee.mutex)
    }

    /// Waits for the instance without blocking a thread (for async callers, e.g. the module manager).
    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            pthread_mutex_lock(&sync.pointee.mutex)
            guard finished else {
                waiters.append { continuation.resume() }
                pthread_mutex_unlock(&sync.pointee.mutex)
                return
            }
            pthread_mutex_unlock(&sync.pointee.mutex)
            continuation.resume()
        }
    }

    package var isOnCurrentThread: Bool { pthread_equal(thread, pthread_self()) != 0 }
}

/// One registered service. Its mutable fields are guarded by the hive's lock.
///
/// They are stored without a run-time exclusivity check (`@exclusivity(unchecked)`): a class's stored `var` is
/// otherwise checked on every use (`swift_beginAccess`, ~80 instructions), several times per first use, and the lock
/// already makes every access exclusive. (They lay out of line before, behind a pointer: an allocation per entry.)
final class ServiceEntry {
    let registration: ServiceRegistration
    /// For a registration read from a typed record (a Swift annotation), the service the record annotated its
    /// implementation with and how to make an instance boxed as it: kept here, where the provider's ``ServiceBoxes``
    /// of one would be an allocation per registration.
    let annotated: ServiceBoxes.Boxed?
    @exclusivity(unchecked)
    var provider: Provider
    /// The slot (``slot``) in fields that the first use writes one by one: an `InstanceSlot` is an enum of payloads,
    /// each write of which goes through functions that switch over its cases. The shared instance once made (`()`
    /// while there is none: an `Any?` would have its metadata made from its mangled name once per process); the
    /// thread making it, while it does (0 otherwise); the ticket its waiters wait on.
    @exclusivity(unchecked)
    private var instance: Any = ()
    @exclusivity(unchecked)
    private var hasInstance = false
    @exclusivity(unchecked)
    private var creator: pthread_t = 0
    @exclusivity(unchecked)
    private var creationTicket: CreationTicket?
    /// Counts changes of `slot`, so that a typed box is stored only for the instance it was made from.
    @exclusivity(unchecked)
    private(set) var generation = 0
    /// The shared instance boxed as the type it was last asked for: the typed path takes it without a cast.
    @exclusivity(unchecked)
    var typedInstance: TypedBox?
    /// Whether its registration was withdrawn (its image unloaded, its plugin upgraded or retired): an instance
    /// whose creation began before is given to the caller that asked for it, but never cached for the next ones.
    @exclusivity(unchecked)
    var isWithdrawn = false
    /// Its place in ``RegistryState/serviceOrder`` while it serves its key.
    @exclusivity(unchecked)
    var orderIndex = 0

    init(_ registration: ServiceRegistration, _ provider: Provider, annotated: ServiceBoxes.Boxed? = nil) {
        self.registration = registration
        self.annotated = annotated
        self.provider = provider
    }

    /// The service as a type (or its key), when a typed record annotated the implementation with it: the registry
    /// indexes the entry under it while it serves, so that its first use by type finds it without naming the type.
    var serviceType: ObjectIdentifier? { (annotated?.service).map { ObjectIdentifier($0) } }

    /// How to make an instance boxed as `service`, if the implementation was annotated with it: the annotated
    /// service's maker, else one of `boxes`, the provider's.
    func maker(for service: ObjectIdentifier, in boxes: ServiceBoxes) -> ServiceMaker? {
        if let annotated, ServiceBoxes.boxes(annotated, as: service) { return annotated.make }
        return boxes.maker(for: service)
    }

    /// The instance slot; each change counts in ``generation`` and forgets ``typedInstance``.
    var slot: InstanceSlot {
        get {
            if hasInstance { return .ready(instance) }
            return creator != 0 ? .creating(thread: creator, ticket: creationTicket) : .empty
        }
        set {
            switch newValue {
            case .empty: release()
            case .creating(let thread, let ticket):
                release()
                (creator, creationTicket) = (thread, ticket)
            case .ready(let made): keep(made)
            }
            changed()
        }
    }

    /// Claims the empty slot for the calling thread, which then makes the shared instance (the slot becomes
    /// `.creating` with no ticket); false when the slot is not empty.
    func claim() -> Bool {
        guard !hasInstance && creator == 0 else { return false }
        creator = pthread_self()
        changed()
        return true
    }

    /// Keeps `instance` as the shared one, boxed as `boxed`, where this thread was making it; returns the ticket of
    /// the threads waiting for it, if any.
    func keep(_ instance: consuming Any, boxed: TypedBox?) -> CreationTicket? {
        let ticket = creationTicket
        keep(instance)
        changed()
        typedInstance = boxed
        return ticket
    }

    private func keep(_ made: consuming Any) {
        (creator, creationTicket) = (0, nil)
        instance = made
        hasInstance = true
    }

    private func release() {
        (creator, creationTicket) = (0, nil)
        if hasInstance {
            instance = ()
            hasInstance = false
        }
    }

    private func changed() {
        generation &+= 1
        typedInstance = nil
    }
}

/// A shared instance boxed for the exact type it was asked for: what the cached path of
/// ``Hive/createService(_:name:shouldCache:)-(Service.Type,_,_)`` returns without a cast. Valid while its entry's slot
/// is unchanged.
struct SharedInstance {
    let entry: ServiceEntry
    let generation: Int
    /// A box whose value is of the type of the key it is stored under, and no other.
    let box: TypedInstance
}

/// Everything a hive knows, behind one lock.
struct RegistryState {
    var services = KeyedTable<RegistrationKey, ServiceEntry>()
    /// The entries that serve a key, in the order their keys were first registered: an entry that takes a key over
    /// takes its place (``ServiceEntry/orderIndex``). Entries, not keys: an array of `RegistrationKey`s made the
    /// runtime build its storage type's metadata from its mangled name at the first registration of every process
    /// (~12 K instructions), where the arrays of entries have theirs already.
    var serviceOrder: [ServiceEntry] = []
    var typeIndex = TypeIndex()
    /// The shared instances asked for by type, each boxed as that type, that their entries do not keep (the cached
    /// path; see ``SharedInstanceTable``).
    var sharedInstances = SharedInstanceTable()
    var modules: [String: ModuleDeclaration] = [:]
    var moduleOrder: [String] = []
    var routes: [RouteDeclaration] = []
    /// How many services the batch being added brings the registry to (``reserve(_:)``).
    private var expectedServices = 0
    /// Counts changes of `routes`, so that routers take new declarations and drop withdrawn ones.
    var routeGeneration = 0
    /// Service registrations that wait behind the one serving their key, highest rank first, then in the order they
    /// came, at most one per origin (see ``RegistrationOrigin``): when the winner's image is unloaded, the first of
    /// these whose image is still there takes over.
    var shadowedServices = KeyedTable<RegistrationKey, Shadows<ServiceEntry>>()
    /// Module declarations that lost to an earlier one of the same name, likewise.
    var shadowedModules: [String: Shadows<ModuleDeclaration>] = [:]
    var diagnostics = DiagnosticLog()
    /// Why and when the registrations of keys that nothing serves now were withdrawn, for "not found" errors (a
    /// key's entry goes when it is served again; at most one per key ever registered).
    var withdrawn: [RegistrationKey: String] = [:]
    /// The hive's observers of service registrations, once one was added: changes of the registrations that serve
    /// a service are queued for them as they happen (nil costs one test per change).
    var observers: ServiceObservers?
    /// Entries that left the registry holding a shared instance while the lock was held (an outranked registration
    /// that can never take over again): the caller releases them once the lock is released, since a deinit is user
    /// code.
    var released: [ServiceEntry] = []

    /// The registrations that serve the service named `service` (under any name), in the order they were added.
    func registrations(serving service: String) -> [ServiceRegistration] {
        serviceOrder.compactMap { $0.registration.service == service ? $0.registration : nil }
    }

    /// The registrations of the loaded image `imageID` that serve their services.
    func registrations(ofImage imageID: UInt64) -> [ServiceRegistration] {
        serviceOrder.compactMap { $0.registration.source.imageID == imageID ? $0.registration : nil }
    }

    /// Adds a registration. It serves its key when the key is free, or when it outranks the registration serving it,
    /// which then waits among the shadows; otherwise it waits there itself, if it could ever take over. Returns the
    /// entry that serves the key afterwards. O(1) for registrations of equal rank.
    ///
    /// A registration that waits is reinstated when the one serving is withdrawn (its image unloaded), the highest
    /// rank first. It is not kept when it never could be: behind a registration of a file or code (never
    /// withdrawn) that outranks or equals it, nor beside one from the same image (they are withdrawn together).
    mutating func add(_ entry: ServiceEntry) -> ServiceEntry {
        let registration = entry.registration
        let key = registration.key
        // One probe: the key's holder, or the entry inserted. (No flag set by `initial`: a local function that
        // captures a variable makes each access to it checked for exclusivity at run time, ~0.2 K instructions.)
        var existing: ServiceEntry?
        services.modify(key, initial: entry) { if $0 !== entry { existing = $0 } }
        guard let holder = existing else {
            entry.orderIndex = serviceOrder.count
            serviceOrder.append(entry)
            if !withdrawn.isEmpty { withdrawn[key] = nil }
            indexType(of: entry)
            observers?.post(.added, [registration])
            return entry
        }
        guard registration.rank > holder.registration.rank else {
            shadow(entry, key: key, behind: holder)
            return holder
        }
        services[key] = entry
        putInOrder(entry, inPlaceOf: holder)
        shadow(holder, key: key, behind: entry)
        typeIndex.removeAll()
        sharedInstances.removeAll()
        indexType(of: entry)
        if let observers {
            observers.post(.removed, [holder.registration])
            observers.post(.added, [registration])
        }
        return entry
    }

    /// Puts `entry`, which now serves the key `old` served, in `old`'s place in ``serviceOrder``.
    private mutating func putInOrder(_ entry: ServiceEntry, inPlaceOf old: ServiceEntry) {
        entry.orderIndex = old.orderIndex
        serviceOrder[old.orderIndex] = entry
    }

    /// Indexes `entry`, which now serves its key, under its service's type when its registration gives it. Other
    /// entries are indexed by their first use by type.
    mutating func indexType(of entry: ServiceEntry) {
        guard let type = entry.serviceType else { return }
        typeIndex.set(
            entry, for: TypeKey(type: type, name: entry.registration.name),
            expected: max(services.count, expectedServices))
    }

    /// Forgets the entries indexed by type and the shared instances boxed by type (registrations changed), then
    /// indexes again the entries that serve and give their service's type.
    mutating func reindexTypes() {
        typeIndex.removeAll()
        sharedInstances.removeAll()
        for entry in services.values where entry.serviceType != nil { indexType(of: entry) }
    }

    /// Empties ``released`` and returns what it held, for the caller to release once the lock is released.
    mutating func takeReleased() -> [ServiceEntry] {
        defer { released = [] }
        return released
    }

    /// Keeps `entry` among the shadows of `key`, served by `holder`, if it could ever take over; an entry that holds
    /// an instance and is not kept is released later, outside the lock (see ``released``).
    private mutating func shadow(_ entry: ServiceEntry, key: RegistrationKey, behind holder: ServiceEntry) {
        let origin = RegistrationOrigin(entry.registration.source)
        let winner = RegistrationOrigin(holder.registration.source)
        var dropped: [ServiceEntry] = []
        if winner.isWithdrawable && origin != winner {
            shadowedServices.modify(key, initial: Shadows()) {
                dropped = $0.add(entry, from: origin, rank: entry.registration.rank)
            }
        } else {
            dropped = [entry]
        }
        for entry in dropped where entry.cachedInstance != nil { released.append(entry) }
    }

    /// Declares a module unless its name is taken; returns the declaration that holds the name. O(1).
    mutating func add(_ module: ModuleDeclaration) -> ModuleDeclaration? {
        if let existing = modules[module.name] {
            let origin = RegistrationOrigin(module.source)
            let winner = RegistrationOrigin(existing.source)
            if winner.isWithdrawable && origin != winner {
                _ = shadowedModules[module.name, default: Shadows()].add(module, from: origin, rank: 0)
            }
            return existing
        }
        modules[module.name] = module
        moduleOrder.append(module.name)
        return nil
    }

    /// Adds route declarations.
    mutating func add(routes declarations: [RouteDeclaration]) {
        guard !declarations.isEmpty else { return }
        routes.append(contentsOf: declarations)
        routeGeneration += 1
    }

    /// Makes room for `count` more services (the type index is sized for them when its first entry comes).
    mutating func reserve(_ count: Int) {
        guard count > 1 else { return }
        services.reserveCapacity(count)
        serviceOrder.reserveCapacity(serviceOrder.count + count)
        expectedServices = services.count + count
    }

    /// What withdrawing an image's registrations did.
    struct Withdrawal {
        /// Registrations and declarations of the image that were in force and were removed.
        var withdrawn = 0
        /// Registrations of other sources that took over, described for a diagnostic.
        var reinstated: [String] = []
        /// The withdrawn entries, with the shared instances they hold: released by the caller once every lock is
        /// released, since a deinit is user code.
        var released: [ServiceEntry] = []
        /// The withdrawn module declarations.
        var modules: [ModuleDeclaration] = []
    }

    /// Withdraws everything the loaded image `imageID` declared; where another source (another image, a file,
    /// code) declared the same service or module, its registration takes over (hot upgrade: load v2 beside v1,
    /// unload v1, the services now resolve to v2). `reason` says why, for the "not found" of a key left without a
    /// registration ("the plugin /opt/p.so was retired").
    mutating func withdraw(image imageID: UInt64, reason: String) -> Withdrawal {
        var result = Withdrawal()
        let belongs = { (source: RegistrationSource) in source.imageID == imageID }
        var removed: [ServiceRegistration] = []
        var added: [ServiceRegistration] = []
        var keysLeft = false
        let now = Self.now()

        for key in shadowedServices.keys {
            for entry in shadowedServices[key]!.removeAll(from: imageID) {
                entry.isWithdrawn = true
                result.released.append(entry)
            }
            if shadowedServices[key]!.isEmpty { shadowedServices[key] = nil }
        }
        for (key, entry) in services.entries where belongs(entry.registration.source) {
            result.withdrawn += 1
            entry.isWithdrawn = true
            result.released.append(entry)
            removed.append(entry.registration)
            if let next = shadowedServices[key]?.removeFirst() {
                services[key] = next
                putInOrder(next, inPlaceOf: entry)
                let registration = next.registration
                added.append(registration)
                if shadowedServices[key]!.isEmpty { shadowedServices[key] = nil }
                result.reinstated.append(
                    "\(registration.displayName) -> \(registration.implementation) from \(registration.source)")
            } else {
                services[key] = nil
                keysLeft = true
                withdrawn[key] =
                    "It was withdrawn at \(now): \(reason) (it served \(entry.registration.displayName) -> "
                    + "\(entry.registration.implementation))"
            }
        }
        if keysLeft {  // the places of the keys left without an entry go
            serviceOrder.removeAll { $0.isWithdrawn }
            for (index, entry) in serviceOrder.enumerated() { entry.orderIndex = index }
        }
        if let observers, !removed.isEmpty {
            observers.post(.removed, removed)
            observers.post(.added, added)
        }

        for name in Array(shadowedModules.keys) {
            _ = shadowedModules[name]!.removeAll(from: imageID)
            if shadowedModules[name]!.isEmpty { shadowedModules[name] = nil }
        }
        for (name, module) in modules where belongs(module.source) {
            result.withdrawn += 1
            result.modules.append(module)
            if let next = shadowedModules[name]?.removeFirst() {
                modules[name] = next
                if shadowedModules[name]!.isEmpty { shadowedModules[name] = nil }
                result.reinstated.append("module \(name) from \(next.source)")
            } else {
                modules[name] = nil
            }
        }
        moduleOrder.removeAll { modules[$0] == nil }

        let routesBefore = routes.count
        routes.removeAll { belongs($0.source) }
        if routes.count != routesBefore {
            result.withdrawn += routesBefore - routes.count
            routeGeneration += 1
        }
        reindexTypes()
        return result
    }

    /// Withdraws what the image `old` declared (when given) and adds a plugin's registrations, as one step under the
    /// hive's lock: a resolve or a route import sees the registry before or after, never between (a plugin upgrade).
    /// - Returns: The withdrawal, and each added registration that lost to one already there (with the winner).
    mutating func replace(
        image old: UInt64?, reason: String, services entries: [ServiceEntry], modules declarations: [ModuleDeclaration],
        routes declarations2: [RouteDeclaration]
    ) -> (Withdrawal, duplicates: [(ServiceRegistration, ServiceRegistration)], moduleDuplicates: [ModuleDeclaration]) {
        var withdrawal = old.map { withdraw(image: $0, reason: reason) } ?? Withdrawal()
        var duplicates: [(ServiceRegistration, ServiceRegistration)] = []
        var moduleDuplicates: [ModuleDeclaration] = []
        reserve(entries.count)
        for entry in entries {
            let holder = add(entry)
            if holder !== entry && holder.registration.rank == entry.registration.rank {
                duplicates.append((entry.registration, holder.registration))
            }
        }
        for module in declarations {
            if let existing = add(module) { moduleDuplicates.append(existing) }
        }
        add(routes: declarations2)
        reindexTypes()
        withdrawal.released += takeReleased()
        return (withdrawal, duplicates, moduleDuplicates)
    }
}

extension RegistryState {
    /// The time now, UTC, as `2026-11-28T04:40:12Z`.
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// What a registration can be withdrawn with: the loaded image it came from, or nothing (a file, code, a source
/// made by hand without an image), which stays until the hive goes.
struct RegistrationOrigin: Hashable {
    /// The image's id; nil for a source that is never withdrawn.
    let imageID: UInt64?

    init(_ source: RegistrationSource) { imageID = source.imageID }

    /// Whether unloading an image can withdraw registrations of this origin.
    var isWithdrawable: Bool { imageID != nil }
}

/// Registrations that wait behind the holder of a key: highest rank first, then in the order they came, at most one
/// per origin.
///
/// One per origin is enough: registrations of one image are withdrawn together, so only the best of them can ever
/// take over. A registration that is never withdrawn (a file, code) is always last: nothing behind it can take over.
/// Adding one of rank equal to the last costs O(1) (a set look-up), so that n duplicates of one service cost O(n),
/// not O(n²); a different rank costs a scan of the queue, which holds at most one per loaded image.
struct Shadows<Element> {
    private(set) var queue: [(origin: RegistrationOrigin, rank: Int, element: Element)] = []
    private var origins: Set<RegistrationOrigin> = []
    /// Whether the last queued registration is one that is never withdrawn.
    private var hasPermanent = false

    var isEmpty: Bool { queue.isEmpty }

    /// Queues `element` in its place, unless it could never take over: its origin has one of equal or higher rank
    /// queued, or a permanent one is queued before its place.
    /// - Returns: What is no longer queued: `element` itself when refused; else its origin's lower-ranked one, and,
    ///   when `element` is permanent, those behind it.
    mutating func add(_ element: Element, from origin: RegistrationOrigin, rank: Int) -> [Element] {
        var dropped: [Element] = []
        if origins.contains(origin) {
            let index = queue.firstIndex { $0.origin == origin }!
            guard queue[index].rank < rank else { return [element] }
            dropped.append(queue.remove(at: index).element)
            origins.remove(origin)
            if !origin.isWithdrawable { hasPermanent = false }
        }
        var place = queue.count
        while place > 0 && queue[place - 1].rank < rank { place -= 1 }
        if hasPermanent && place == queue.count { return dropped + [element] }
        queue.insert((origin, rank, element), at: place)
        origins.insert(origin)
        if !origin.isWithdrawable {
            for behind in queue[(place + 1)...] {
                origins.remove(behind.origin)
                dropped.append(behind.element)
            }
            queue.removeSubrange((place + 1)...)
            hasPermanent = true
        }
        return dropped
    }

    /// Removes the first queued registration and returns it.
    mutating func removeFirst() -> Element? {
        guard !queue.isEmpty else { return nil }
        let first = queue.removeFirst()
        origins.remove(first.origin)
        if queue.isEmpty { hasPermanent = false }
        return first.element
    }

    /// Removes the registration of image `imageID`, if one is queued, and returns what it removed.
    mutating func removeAll(from imageID: UInt64) -> [Element] {
        let origin = RegistrationOrigin(imageID: imageID)
        guard origins.remove(origin) != nil else { return [] }
        let removed = queue.filter { $0.origin == origin }.map(\.element)
        queue.removeAll { $0.origin == origin }
        return removed
    }
}

extension RegistrationOrigin {
    init(imageID: UInt64?) { self.imageID = imageID }
}

/// The diagnostics a hive keeps: the most recent ones, up to a limit, and a count of those dropped, so that a
/// long-running process that loads and unloads plugins does not grow without bound.
struct DiagnosticLog {
    /// How many diagnostics are kept.
    var limit = 1_000
    private var ring: [Diagnostic] = []
    private var start = 0
    /// How many older diagnostics were dropped to respect the limit.
    private(set) var dropped = 0

    /// Keeps a diagnostic, dropping the oldest one when full.
    mutating func append(_ diagnostic: Diagnostic) {
        guard limit > 0 else {
            dropped += 1
            return
        }
        if ring.count < limit {
            ring.append(diagnostic)
        } else {
            ring[start] = diagnostic
            start = (start + 1) % ring.count
            dropped += 1
        }
    }

    /// Keeps several diagnostics, in order.
    mutating func append(contentsOf diagnostics: [Diagnostic]) {
        for diagnostic in diagnostics { append(diagnostic) }
    }

    /// The kept diagnostics, oldest first.
    var elements: [Diagnostic] { Array(ring[start...] + ring[..<start]) }
}
