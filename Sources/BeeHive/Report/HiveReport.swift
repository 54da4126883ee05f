/// What a hive holds, in one value: every service registration (serving or waiting behind a higher rank), module and
/// route, with its source and state, what was withdrawn and why, and the problems found on the way. `Codable`: its
/// JSON is described, and versioned, in `Docs/Report.md`.
///
/// ```swift
/// let report = Hive.shared.report()
/// for service in report.services where service.state == .unresolvable { print(service) }
/// let json = try JSONEncoder().encode(report)
/// ```
public struct HiveReport: Codable, Sendable, Hashable {
    /// The version of this value's schema: 1.
    public var schemaVersion = 1
    /// The service registrations, in the order they were registered; for each service and name the one serving
    /// first, then those waiting behind it, highest rank first.
    public var services: [Service] = []
    /// The module declarations, in the order declared.
    public var modules: [Module] = []
    /// The route declarations of annotation records, in the order found.
    public var routes: [Route] = []
    /// The services and names that nothing serves any more, and why (a plugin retired or upgraded, an image unloaded).
    public var withdrawn: [Withdrawn] = []
    /// The problems the hive keeps (``Hive/diagnostics``): refused, duplicate, unknown, non-conforming and
    /// unresolvable entries, each with its code and message.
    public var problems: [Problem] = []
    /// How many older problems were dropped to keep the list bounded.
    public var droppedProblems = 0

    /// One service registration.
    public struct Service: Codable, Sendable, Hashable {
        /// The service's module-qualified name.
        public var service: String
        /// The registration's name, if any.
        public var name: String?
        /// The implementation's type name, or `factory`.
        public var implementation: String
        /// Its rank; absent when 0.
        public var rank: Int?
        /// Its properties; absent when none.
        public var properties: [String: String]?
        /// `singleton` or `transient` for a factory; absent for a type (its `isSingleton` says, when created).
        public var scope: String?
        /// What it is now.
        public var state: State
        /// Why it cannot be created, for the state `unresolvable`.
        public var reason: String?
        /// Where it came from.
        public var source: Source
        /// The plugin it came with: the plugin's path, when it came from an active plugin.
        public var plugin: String?
        /// The version of the service's API it was built against (`@BeeHiveAPI`), when known.
        public var apiVersion: String?
    }

    /// What a service registration is now.
    public enum State: String, Codable, Sendable, Hashable {
        /// It serves; its implementation is known by name only, not looked up yet.
        case declared
        /// It serves; its implementation type (or factory) is bound.
        case bound
        /// It serves, and its shared instance exists.
        case created
        /// It waits behind a registration of a higher rank (or an earlier one of its rank), and serves when that
        /// one leaves.
        case waiting
        /// Its implementation's type name did not resolve: a request fails with `reason`.
        case unresolvable
    }

    /// One module declaration.
    public struct Module: Codable, Sendable, Hashable {
        /// The module type's module-qualified name.
        public var module: String
        /// Its level: 0 basic, 1 normal, 2 application, or the integer given; lower starts first.
        public var level: Int
        /// Its priority within the level; higher starts first.
        public var priority: Int
        /// Whether its init event runs off the caller's thread.
        public var async: Bool
        /// Where it was declared.
        public var source: Source
        /// The path of the active plugin it came with.
        public var plugin: String?
    }

    /// One route declaration.
    public struct Route: Codable, Sendable, Hashable {
        /// The URL pattern.
        public var pattern: String
        /// The handler type's module-qualified name.
        public var handler: String
        /// Where it was declared.
        public var source: Source
        /// The path of the active plugin it came with.
        public var plugin: String?
    }

    /// A service and name that nothing serves any more.
    public struct Withdrawn: Codable, Sendable, Hashable {
        /// The service's module-qualified name.
        public var service: String
        /// The registration's name, if any.
        public var name: String?
        /// When and why, and what served it.
        public var reason: String
    }

    /// A problem, as ``Diagnostic`` holds it.
    public struct Problem: Codable, Sendable, Hashable {
        /// `error` or `warning`.
        public var severity: String
        /// The ``HiveError`` code: `duplicateRegistration`, `malformedRecord`, `unknownType`, ….
        public var code: String
        /// What was expected, what was found.
        public var message: String
        /// Where, when known.
        public var source: Source?
    }

    /// Where a registration came from; the fields that apply to its kind are present.
    public struct Source: Codable, Sendable, Hashable {
        /// `annotation` (a record of a loaded image), `image` (a loaded image), `file` or `code`.
        public var kind: String
        /// `file:line` of the annotation or of the call in code, when known.
        public var location: String?
        /// The loaded image's path.
        public var image: String?
        /// The record's section.
        public var section: String?
        /// The record's offset in its section.
        public var offset: Int?
        /// The configuration file's path.
        public var file: String?
        /// The entry's index in the configuration file.
        public var entry: Int?
        /// The source as one line, as messages write it.
        public var description: String
    }
}
