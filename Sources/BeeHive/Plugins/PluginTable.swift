@_spi(Testing) internal import _BeeHiveDiscovery

/// What happened to a plugin of a hive, for the products that follow the hive (the module manager): delivered after
/// every lock is released, in order.
package enum PluginEvent: Sendable {
    /// A plugin joined the hive, declaring these modules.
    case joined(Plugin, modules: [ModuleDeclaration])
    /// A plugin was retired (or replaced by an upgrade); these modules it declared were withdrawn.
    case retired(Plugin, modules: [ModuleDeclaration])
}

/// The plugins of one hive, and the images being loaded into it as plugins.
final class PluginTable: Sendable {
    /// An image being loaded as a plugin: a scan hands its sections to the plugin's join instead of registering them.
    /// Its fields are guarded by the table's lock.
    final class Claim: @unchecked Sendable {
        /// The file the loader maps.
        let mappedPath: String
        /// The plugin an upgrade replaces: withdrawn in the step that adds this one.
        let replacing: Plugin?
        /// The paths of the images loaded before this one: whatever else defines a protocol came with the plugin.
        let hostImages: Set<String>
        /// Refused before it joined: its sections are dropped whenever a scan delivers them.
        var isRefused = false
        /// Set by the join.
        var outcome: Outcome?

        init(mappedPath: String, replacing: Plugin?, hostImages: Set<String>) {
            self.mappedPath = mappedPath
            self.replacing = replacing
            self.hostImages = hostImages
        }
    }

    /// How a claimed image's join ended.
    enum Outcome {
        /// Its records are read and checked, ready to replace those of the plugin it upgrades in one step (which
        /// the loading call takes, after draining the old plugin).
        case ready(Prepared)
        /// It registered nothing, for these problems.
        case refused([Diagnostic])

        /// Whether it is ready with no record section at all.
        var isEmpty: Bool {
            guard case .ready(let prepared) = self else { return false }
            return prepared.imageID == 0
        }
    }

    /// A plugin's registrations, ready to join.
    struct Prepared {
        let imageID: UInt64
        let services: [ServiceEntry]
        let modules: [ModuleDeclaration]
        let routes: [RouteDeclaration]
        var registered: Plugin.Registered {
            Plugin.Registered(services: services.count, modules: modules.count, routes: routes.count)
        }
    }

    /// The sections and problems a scan delivered for a claimed image.
    struct ClaimedImage {
        let claim: Claim
        var sections: [RecordSection] = []
        var problems: [ImageScanner.ImageProblem] = []
    }

    private struct State {
        /// The path each plugin was loaded from, by its image id (retired ones included: events name them).
        var paths: [UInt64: String] = [:]
        var claims: [String: Claim] = [:]
        var active: [Plugin] = []
        var observers: [Int: @Sendable (PluginEvent) -> Void] = [:]
        var nextObserver = 0
    }

    private let state = LockedValue(State())

    /// Claims the image that will be mapped from `mappedPath`.
    func claim(_ mappedPath: String, replacing: Plugin?, hostImages: Set<String>) -> Claim {
        let claim = Claim(mappedPath: mappedPath, replacing: replacing, hostImages: hostImages)
        state.withLock { $0.claims[mappedPath] = claim }
        return claim
    }

    /// Forgets a claim once its image has been scanned (a refused one is kept: its sections stay dropped).
    func release(_ claim: Claim) {
        state.withLock { state in
            if !claim.isRefused, state.claims[claim.mappedPath] === claim { state.claims[claim.mappedPath] = nil }
        }
    }

    /// Marks a claim refused, or reads its outcome, under the table's lock.
    func update<Result>(_ claim: Claim, _ body: (Claim) -> Result) -> Result { state.withLock { _ in body(claim) } }

    /// Takes the sections and problems of claimed images out of `batch`; those of refused images are dropped.
    func take(from batch: inout ImageScanner.Batch) -> [ClaimedImage] {
        state.withLock { state in
            guard !state.claims.isEmpty else { return [] }
            var claimed: [String: ClaimedImage] = [:]
            batch.sections.removeAll { section in
                guard let claim = state.claims[section.imagePath] else { return false }
                if !claim.isRefused {
                    claimed[section.imagePath, default: ClaimedImage(claim: claim)].sections.append(section)
                }
                return true
            }
            batch.problems.removeAll { problem in
                guard let claim = state.claims[problem.image.path] else { return false }
                if !claim.isRefused {
                    claimed[problem.image.path, default: ClaimedImage(claim: claim)].problems.append(problem)
                }
                return true
            }
            return Array(claimed.values)
        }
    }

    /// The active plugins, in the order they joined.
    var active: [Plugin] { state.withLock { $0.active } }

    /// Remembers the path of the plugin whose image is `imageID`, before its registrations join.
    func remember(imageID: UInt64, path: String) { state.withLock { $0.paths[imageID] = path } }

    /// The path the plugin of image `imageID` was loaded from, if a plugin brought that image.
    func path(ofImage imageID: UInt64) -> String? { state.withLock { $0.paths[imageID] } }

    /// Records a plugin that joined, and the one it replaced (if any) as gone.
    func activate(_ plugin: Plugin, replacing old: Plugin?) {
        state.withLock { state in
            if let old { state.active.removeAll { $0 === old } }
            state.active.append(plugin)
        }
    }

    /// Forgets a retired plugin.
    func deactivate(_ plugin: Plugin) { state.withLock { $0.active.removeAll { $0 === plugin } } }

    /// Adds an observer of plugin events; returns its token.
    func observe(_ handler: @escaping @Sendable (PluginEvent) -> Void) -> Int {
        state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = handler
            return state.nextObserver
        }
    }

    /// Removes an observer.
    func removeObserver(_ token: Int) { state.withLock { $0.observers[token] = nil } }

    /// Delivers events to the observers; call without any lock held (observers are other products' code).
    func notify(_ events: [PluginEvent]) {
        let observers = state.withLock { $0.observers.sorted { $0.key < $1.key }.map(\.value) }
        for event in events {
            for observer in observers { observer(event) }
        }
    }
}
