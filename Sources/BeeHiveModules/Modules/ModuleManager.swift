import BeeHive
import Dispatch

/// Creates modules and delivers events to them in order: BeeHive's `BHModuleManager`.
///
/// Modules come from the hive's declarations (annotation records, `BeeHive.plist`, code) and from
/// ``register(_:level:priority:isAsync:triggersInit:fileID:line:)``. They are ordered by level (lower
/// first), then priority (higher first), then the order they were declared in. Each module is
/// created once, the first time an event reaches it.
///
/// Hooks may be `async`: the manager awaits each module's hook before it calls the next module's, in that
/// order (``ModuleEvent/tearDown`` in reverse). ``start(parameters:)`` delivers setUp to every module, then init
/// (modules declared async run theirs concurrently, as child tasks of a task group, while the others init in
/// order), then splash once every init is done, and returns after splash.
///
/// **Events during start.** An event, ``terminate(parameters:)``,
/// ``register(_:level:priority:isAsync:triggersInit:fileID:line:)``, ``unregister(moduleNamed:)`` or
/// ``launch(moduleNamed:parameters:)`` that arrives while ``start(parameters:)`` is still running (a SIGHUP, say)
/// waits until start has returned, and is then delivered: no module gets a hook while it is being set up,
/// initialized or splashed. Deliveries already running when start is called finish
/// before setUp begins. What a hook itself triggers (in its own task or its child tasks) is delivered at once,
/// not held back: it is part of the work being waited for. So a hook must not wait for ``ready()`` or for an
/// unstructured task (`Task.detached`) that triggers events during start: that would wait for itself.
///
/// ```swift
/// let modules = ModuleManager(hive: .shared)
/// let handlers = modules.installSystemEventHandlers()   // SIGTERM/SIGINT → terminate(), SIGHUP → reload
/// await modules.start()                                 // setUp, init (async modules concurrently), then splash
/// try await modules.trigger(.custom(1001), parameters: ["items": 3])
/// ```
public final class ModuleManager: Sendable {
    /// The hive modules are declared in and resolve services from.
    public let hive: Hive
    /// Times every module × event when enabled.
    public let profiler: TimeProfiler

    let state: LockedValue<State>
    /// Left once start has delivered splash: what ``waitUntilReady()`` and ``ready()`` wait for.
    let readyGroup = DispatchGroup()
    /// The last task that delivers the events of plugins joining or leaving the hive (they run one after the other).
    let pluginWork = LockedValue<Task<Void, Never>?>(nil)

    struct Subscription: Sendable {
        let id: Int
        let handler: @Sendable (ModuleContext) async throws -> Void
    }

    /// A hook a module type does not implement: the named or lifecycle hook of `event`, or (`viaHandleEvent`)
    /// `modHandleEvent` for it.
    struct HookKey: Hashable {
        let type: ObjectIdentifier
        let event: ModuleEvent
        let viaHandleEvent: Bool
    }

    enum Phase { case idle, starting, started, terminated }

    struct State {
        var entries: [String: ModuleEntry] = [:]
        var sorted: [ModuleEntry]?
        var sequence = 0
        var subscriptions: [String: [ModuleEvent: [Subscription]]] = [:]
        var notImplemented: Set<HookKey> = []
        var context: ModuleContext
        var phase = Phase.idle
        /// Start has delivered splash.
        var isReady = false
        /// Module types already warned about for listing events with no Linux meaning.
        var warnedTypes: Set<ObjectIdentifier> = []
        /// Deliveries from outside start running now; start waits for them to finish.
        var inFlight = 0
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        /// Whether ``ModuleManager/terminate(parameters:)`` has finished, and who waits for it.
        var terminationDone = false
        var terminationWaiters: [CheckedContinuation<Void, Never>] = []

        mutating func ordered() -> [ModuleEntry] {
            if let sorted { return sorted }
            let result = entries.values.sorted {
                ($0.level, -$0.priority, $0.sequence) < ($1.level, -$1.priority, $1.sequence)
            }
            sorted = result
            return result
        }
    }

    /// Creates a manager for the modules declared in `hive`.
    /// - Parameters:
    ///   - hive: Where modules are declared and services resolved.
    ///   - context: The context handed (as a copy) to every handler. Default: a context for `hive`.
    ///   - profiler: The time profiler; off unless enabled (or `BEEHIVE_PROFILE=1`).
    public init(hive: Hive = .shared, context: ModuleContext? = nil, profiler: TimeProfiler = TimeProfiler()) {
        self.hive = hive
        self.profiler = profiler
        var base = context ?? ModuleContext(hive: hive)
        base.hive = hive
        self.state = LockedValue(State(context: base))
        readyGroup.enter()
        refresh()
        _ = hive.plugins.observe { [weak self] event in self?.follow(event) }
    }

    /// The manager of `Hive.shared`'s modules.
    public static let shared = ModuleManager()

    /// The context handed to handlers (before the event is set).
    public var context: ModuleContext {
        get { state.withLock { $0.context } }
        set { state.withLock { $0.context = newValue } }
    }

    /// Adds modules declared in the hive since the manager was created or last refreshed, e.g. after
    /// `Hive.rescan()` or `Hive.loadModules(from:)`.
    public func refresh() {
        let declarations = hive.moduleDeclarations
        state.withLock { state in
            for declaration in declarations where state.entries[declaration.name] == nil {
                state.add(ModuleEntry(declaration, type: nil, sequence: state.sequence))
            }
        }
    }

    /// Every module, in the order events reach them.
    public var modules: [ModuleDeclaration] { state.withLock { $0.ordered().map(\.declaration) } }

    // MARK: - Instances

    /// The module's instance, created on first use; nil (with a diagnostic, once) if it cannot be created.
    func instance(of entry: ModuleEntry) async -> (any HiveModule)? {
        while true {
            enum Step {
                case ready(any HiveModule)
                case failed
                case wait(CreationTicket)
                case create(CreationTicket)
            }
            let step: Step = state.withLock { _ in
                // A module type that was unknown may come with an image loaded since (a plugin).
                if case .failed(let loadedImages?) = entry.slot, TypeLookup.loadedImageCount != loadedImages {
                    entry.slot = .empty
                }
                switch entry.slot {
                case .ready(let module): return .ready(module)
                case .failed: return .failed
                case .creating(let ticket): return ticket.isOnCurrentThread ? .failed : .wait(ticket)
                case .empty:
                    let ticket = CreationTicket()
                    entry.slot = .creating(ticket)
                    return .create(ticket)
                }
            }
            switch step {
            case .ready(let module): return module
            case .failed: return nil
            case .wait(let ticket): await ticket.wait()
            case .create(let ticket):
                let made = makeModule(entry)
                state.withLock { _ in
                    switch made {
                    case .success(let module): entry.slot = .ready(module)
                    case .failure(let failure): entry.slot = .failed(loadedImages: failure.retryAfter)
                    }
                }
                ticket.finish()
                return try? made.get()
            }
        }
    }

    /// Why a module was not created; an unknown type may be retried once more images are loaded.
    private struct CreationFailure: Error {
        let retryAfter: UInt64?
    }

    /// Creates the module, or reports (once) why it cannot.
    private func makeModule(_ entry: ModuleEntry) -> Result<any HiveModule, CreationFailure> {
        let type: any HiveModule.Type
        if let known = entry.type {
            type = known
        } else {
            do throws(HiveError) {
                type = try moduleType(of: entry.declaration)
            } catch {
                // An unknown type may come with an image loaded later (a plugin); a type that is no module stays so.
                let retryAfter = error.code == .unknownType ? TypeLookup.loadedImageCount : nil
                hive.record([Diagnostic(.error, error)])
                return .failure(CreationFailure(retryAfter: retryAfter))
            }
        }
        warnAboutEventsWithoutLinuxMeaning(type, entry)
        return .success(type.init())
    }

    /// The module type a declaration names, found by name and checked to be a ``HiveModule``.
    func moduleType(of declaration: ModuleDeclaration) throws(HiveError) -> any HiveModule.Type {
        guard let found = TypeLookup.type(named: declaration.name, for: hive) else {
            throw .unknownType(declaration.name, role: "a module", source: declaration.source)
        }
        guard let module = Conformances.metatype(found, as: (any HiveModule.Type).self, path: hive.bindingPath) else {
            throw HiveError(
                .notAModule,
                "expected \(declaration.name) to be a module (a class conforming to HiveModule); it is not",
                source: declaration.source)
        }
        return module
    }

    /// Records one warning per module type that lists events with no Linux meaning: they are never delivered.
    private func warnAboutEventsWithoutLinuxMeaning(_ type: any HiveModule.Type, _ entry: ModuleEntry) {
        let rejected = type.events.sorted().compactMap(\.linuxRejection)
        guard !rejected.isEmpty,
            state.withLock({ $0.warnedTypes.insert(ObjectIdentifier(type)).inserted })
        else { return }
        hive.record([
            Diagnostic(
                .warning,
                HiveError(
                    .unsupportedEvent,
                    "expected module \(entry.name) to list events with a meaning on Linux in its events; found "
                        + rejected.joined(separator: "; ")
                        + ". They are never delivered (trigger rejects them): remove them, or use a custom event",
                    source: entry.declaration.source))
        ])
    }

    func report(_ code: HiveError.Code, _ message: String, _ entry: ModuleEntry) {
        hive.record([Diagnostic(.error, HiveError(code, message, source: entry.declaration.source))])
    }
}

/// One module: its declaration and, once created, its instance. Mutable fields are guarded by the manager's lock.
final class ModuleEntry: @unchecked Sendable {
    enum Slot {
        case empty
        case creating(CreationTicket)
        case ready(any HiveModule)
        /// Not created; `loadedImages` is set when the type was unknown, to look again after a `dlopen`.
        case failed(loadedImages: UInt64?)
    }

    let declaration: ModuleDeclaration
    let type: (any HiveModule.Type)?
    let sequence: Int
    var slot = Slot.empty
    /// Whether setUp, init and splash were (or are being) delivered to it by start or by a registration after start.
    var lifecycleClaimed = false

    init(_ declaration: ModuleDeclaration, type: (any HiveModule.Type)?, sequence: Int) {
        self.declaration = declaration
        self.type = type
        self.sequence = sequence
    }

    var name: String { declaration.name }
    var level: Int { declaration.level.rawValue }
    var priority: Int { declaration.priority }
    var isAsync: Bool { declaration.isAsync }

    var readyInstance: (any HiveModule)? {
        if case .ready(let module) = slot { return module }
        return nil
    }
}

extension ModuleManager.State {
    mutating func add(_ entry: ModuleEntry) {
        entries[entry.name] = entry
        sequence += 1
        sorted = nil
    }
}
