/// Why a plugin could not be loaded, retired or upgraded: what was expected, what was found, and which file.
///
/// ```swift
/// do {
///     let plugin = try hive.plugins.load(path: "/opt/app/plugins/libPayments.so")
/// } catch let error where error.code == .untrustedFile {
///     print(error)   // /opt/app/plugins/libPayments.so: expected a file writable by its owner or root only; …
/// }
/// ```
public struct PluginError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error. New codes may be added; match the ones you handle.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The file does not exist or cannot be read.
        public static let fileNotFound = Code("fileNotFound")
        /// The file is no shared library for this machine (not ELF, a program, a relocatable object, another
        /// machine's, a static archive, random bytes): refused before it was copied or loaded.
        public static let notASharedLibrary = Code("notASharedLibrary")
        /// The process has loaded the file already (the same path, the same file, or the same build-id): the main
        /// program, a library the host links (the protocols' package), or one the program opened itself. Refused
        /// before it was loaded, so that no second copy of its types joins.
        public static let alreadyLoaded = Code("alreadyLoaded")
        /// The file declares no services, modules or routes (no BeeHive note, or no record section once loaded).
        public static let noRecords = Code("noRecords")
        /// The dynamic loader refused the file (`dlopen` failed); the message has its reason.
        public static let notLoadable = Code("notLoadable")
        /// The file, or a directory above it, may be written by a user other than its owner and root, and
        /// ``Hive/PluginLoadOptions/requiresTrustedFiles`` is set.
        public static let untrustedFile = Code("untrustedFile")
        /// The plugin carries a copy of BeeHive of its own: it would register into another hive than the host's.
        public static let secondBeeHive = Code("secondBeeHive")
        /// The plugin's records cannot be registered as they are (a malformed record, an unknown format version,
        /// an unreadable image): it was refused and registered nothing.
        public static let refused = Code("refused")
        /// The plugin's services are in use under leases (`withService(_:)`) that did not
        /// end within the drain timeout of a retire or an upgrade; the message names where they were taken. The
        /// plugin stays active.
        public static let pluginBusy = Code("pluginBusy")
        /// The plugin was retired before.
        public static let retired = Code("retired")
        /// The hive does not read annotation records of loaded images (``Hive/Options-swift.struct/scansLoadedImages``
        /// is off), so a plugin could not join it.
        public static let notScanning = Code("notScanning")
        /// The plugin belongs to another hive.
        public static let otherHive = Code("otherHive")

        /// The code's name, for example `untrustedFile`.
        public var description: String { name }
    }

    /// The kind of error.
    public let code: Code
    /// What was expected and what was found.
    public let message: String
    /// The plugin file concerned.
    public let path: String
    /// The problems that made a plugin be refused, one per record or image (for ``Code/refused``).
    public let problems: [Diagnostic]

    /// Creates an error.
    public init(_ code: Code, _ message: String, path: String, problems: [Diagnostic] = []) {
        self.code = code
        self.message = message
        self.path = path
        self.problems = problems
    }

    public var description: String {
        let details = problems.map { "\n  \($0)" }.joined()
        return "\(path): \(message) [\(code)]\(details)"
    }
}
