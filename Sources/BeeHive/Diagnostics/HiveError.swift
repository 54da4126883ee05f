/// An error from the registry: what was expected, what was found, and where.
///
/// Errors are values: compare ``code`` to tell them apart, print the error for a message that
/// names the image, file or code location it came from.
///
/// ```swift
/// do {
///     let tracker = try hive.createService(UserTrackService.self)
/// } catch let error where error.code == .serviceNotFound {
///     print(error)   // expected a registration for App.UserTrackService; found none. Registered services: …
/// }
/// ```
public struct HiveError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error. New codes may be added; match the ones you handle.
    ///
    /// Codes are grouped by the product that raises them: the registry's are here; the module system's
    /// (`moduleNotFound`, `unsupportedEvent`, …) are declared by `BeeHiveModules`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        /// A code named `name`; products declare their codes with it.
        package init(_ name: String) { self.name = name }

        /// A record is not the JSON its section expects.
        public static let malformedRecord = Code("malformedRecord")
        /// A record or file entry is not valid UTF-8.
        public static let invalidUTF8 = Code("invalidUTF8")
        /// A record reaches the end of its section without a terminating NUL.
        public static let unterminatedRecord = Code("unterminatedRecord")
        /// No type of that name is loaded.
        public static let unknownType = Code("unknownType")
        /// The type exists but is not an implementation (it does not conform to ``ServiceImplementation``).
        public static let notAnImplementation = Code("notAnImplementation")
        /// The implementation's instance does not conform to the service it was registered for.
        public static let doesNotConform = Code("doesNotConform")
        /// The service (and name) was registered before.
        public static let duplicateRegistration = Code("duplicateRegistration")
        /// No implementation is registered for the service.
        public static let serviceNotFound = Code("serviceNotFound")
        /// A configuration file does not exist or cannot be read.
        public static let fileNotFound = Code("fileNotFound")
        /// A configuration file is not a property list or JSON of the expected shape.
        public static let malformedFile = Code("malformedFile")
        /// One entry of a configuration file is not of the expected shape.
        public static let malformedEntry = Code("malformedEntry")
        /// A loaded image could not be read.
        public static let unreadableImage = Code("unreadableImage")
        /// An image that registered services was unloaded; its registrations were withdrawn.
        public static let imageUnloaded = Code("imageUnloaded")
        /// An implementation's initializer asked, on the same thread, for the instance being created.
        public static let cyclicDependency = Code("cyclicDependency")
        /// A factory threw while creating an instance.
        public static let creationFailed = Code("creationFailed")
        /// `Hive.bootstrap` was called after the shared hive was created or bootstrapped.
        public static let alreadyBootstrapped = Code("alreadyBootstrapped")
        /// ``Hive/validate()`` found problems.
        public static let validationFailed = Code("validationFailed")
        /// A module level is neither a known name nor an integer.
        public static let unknownModuleLevel = Code("unknownModuleLevel")
        /// An observer of a service's registrations had not returned from a `removing` event within the drain
        /// timeout of the retire or upgrade that delivered it; the retire went on.
        public static let slowObserver = Code("slowObserver")
        /// A timeline's Chrome Trace file (``HiveTimeline/write(to:)``, `BEEHIVE_TRACE`) could not be written.
        public static let timelineNotWritten = Code("timelineNotWritten")
        /// A service's implementation was built against a version of the service's API (`@BeeHiveAPI`) that the
        /// process does not serve: another major version, or a newer minor version than the loaded API module's. The
        /// registration was refused (a plugin with such a record is refused whole).
        public static let incompatibleAPIVersion = Code("incompatibleAPIVersion")
        /// A plugin's implementation of a versioned service says no version it was built against (built before the
        /// protocol declared one, or a C record without `"api"`): it joined, unchecked.
        public static let unversionedImplementation = Code("unversionedImplementation")

        /// The code's name, for example `serviceNotFound`.
        public var description: String { name }
    }

    /// The kind of error.
    public let code: Code
    /// What was expected and what was found.
    public let message: String
    /// Where the offending registration came from, when one did.
    public let source: RegistrationSource?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of error.
    ///   - message: What was expected and what was found.
    ///   - source: Where the offending registration came from.
    public init(_ code: Code, _ message: String, source: RegistrationSource? = nil) {
        self.code = code
        self.message = message
        self.source = source
    }

    public var description: String {
        guard let source else { return "\(message) [\(code)]" }
        return "\(source): \(message) [\(code)]"
    }
}
