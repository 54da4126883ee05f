internal import _BeeHiveDiscovery

/// A shared library loaded into a hive with ``Hive/Plugins-swift.struct/load(path:options:)``: its services, named
/// services, modules and routes are registered while it is active, and withdrawn when it is retired or upgraded.
///
/// ```swift
/// let payments = try Hive.shared.plugins.load(path: "/opt/app/plugins/libPayments.so")
/// // … later, a new build:
/// let newer = try Hive.shared.plugins.upgrade(payments, to: "/opt/app/plugins/libPayments.so")
/// try newer.retire()
/// ```
///
/// A plugin of Swift code stays mapped after it is retired (the Swift runtime keeps pointers into its metadata);
/// one of C code only is unloaded (see the Plugins article).
public final class Plugin: Sendable, Hashable, CustomStringConvertible {
    /// Where a plugin is in its life.
    public enum State: Sendable, Hashable {
        /// Its registrations are in force.
        case active
        /// Its registrations were withdrawn (retired, or replaced by an upgrade).
        case retired
    }

    /// The path it was loaded from, as given.
    public let path: String
    /// The file the loader mapped: a private copy of `path` in the process's copy directory (or
    /// ``Hive/PluginLoadOptions/copyDirectory``), removed once mapped (the loader would hand back a loaded image for a
    /// known path or inode).
    public let mappedPath: String
    /// The loaded image's id in the hive's scanner (as in ``RegistrationSource/imageID``).
    public let imageID: UInt64
    /// Whether the image holds Swift code: then it is pinned and stays mapped after ``retire()``.
    public let hasSwiftCode: Bool
    /// How many services, modules and routes it registered when it joined.
    public let registered: Registered

    /// What a plugin registered when it joined.
    public struct Registered: Sendable, Hashable {
        /// Service registrations (named ones included).
        public var services = 0
        /// Module declarations.
        public var modules = 0
        /// Route declarations.
        public var routes = 0
    }

    let hive: Hive
    /// The loader's handle, as an address (a handle is only passed back to the loader).
    private let handleAddress: UInt
    private let lifecycle = LockedValue(State.active)

    init(
        hive: Hive, path: String, mappedPath: String, imageID: UInt64, hasSwiftCode: Bool, registered: Registered,
        handle: UnsafeMutableRawPointer
    ) {
        self.hive = hive
        self.path = path
        self.mappedPath = mappedPath
        self.imageID = imageID
        self.hasSwiftCode = hasSwiftCode
        self.registered = registered
        self.handleAddress = UInt(bitPattern: handle)
    }

    /// The loader's handle.
    var handle: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: handleAddress)! }

    /// Whether its registrations are in force.
    public var state: State { lifecycle.withLock { $0 } }

    /// Withdraws everything it registered (services, named services, modules, routes) and releases the shared
    /// instances BeeHive created of its services; then closes it (a plugin of C code only is unmapped).
    ///
    /// When this returns, no resolve and no route of the hive hands out anything of the plugin. Modules get their
    /// tearDown from a module manager that follows the hive (`BeeHiveModules`).
    /// - Throws: ``PluginError`` with code ``PluginError/Code/retired`` when it was retired before.
    public func retire() throws(PluginError) { try hive.plugins.retire(self) }

    /// Marks it retired; false when it was already.
    func markRetired() -> Bool {
        lifecycle.withLock { state in
            guard state == .active else { return false }
            state = .retired
            return true
        }
    }

    public static func == (lhs: Plugin, rhs: Plugin) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String {
        "plugin \(path) (image #\(imageID), mapped from \(mappedPath), \(state))"
    }
}
