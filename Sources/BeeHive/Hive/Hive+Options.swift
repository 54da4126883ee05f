import CoreMetrics
import Logging
import Tracing

extension Hive {
    /// How a hive behaves.
    public struct Options: Sendable {
        /// Strict mode (BeeHive's `enableException`): duplicates are errors, `register` throws on a
        /// duplicate, and file loading throws when any entry was rejected. Default: `false`, where the
        /// first registration of a service wins and later ones are reported as warnings.
        public var isStrict: Bool
        /// Where diagnostics are logged: `Logger(label: "BeeHive")` unless set.
        ///
        /// The default logger is made when it is first used (the first diagnostic), not with the options: making a
        /// logger sets up swift-log's global state, about 85 K instructions that a start without diagnostics
        /// would pay for nothing.
        public var logger: Logger {
            get { customLogger ?? Self.defaultLogger }
            set { customLogger = newValue }
        }
        private var customLogger: Logger?
        private static let defaultLogger: Logger = {
            let logger = Logger(label: "BeeHive")
            if let library = RuntimeMarker.sharedLibrary {
                let message =
                    "BeeHive logs through the copy of swift-log inside \(library) (the BeeHiveDynamic product), which "
                    + "the program's LoggingSystem.bootstrap does not reach: to send BeeHive's diagnostics where the "
                    + "program's logs go, call Hive.bootstrap(.init(logger: Logger(label: \"BeeHive\"))) after "
                    + "LoggingSystem.bootstrap and before Hive.shared is first used"
                logger.notice("\(message)", metadata: ["code": "logging"])
            }
            return logger
        }()
        /// Whether the hive registers the annotation records of the loaded images. The shared hive
        /// always does; other hives do only when this is set.
        public var scansLoadedImages: Bool
        /// Whether the scanner opens every image, not only those with a BeeHive note (for images
        /// whose records were written without `beehive.h`). Slower: each image is read from disk.
        public var scansAllImages: Bool
        /// The record sections to register, by name; nil (the default) registers every section an
        /// image announces. Lets a process keep several record sets apart, e.g. one per plugin family.
        /// The hive's scanner reads only these: the other sections are neither copied from memory nor read
        /// from a file, and the Swift macros' records only when `swift5_tests` is named.
        public var recordSections: Set<String>? {
            get { filtersRecordSections ? Set(recordSectionNames) : nil }
            set {
                filtersRecordSections = newValue != nil
                recordSectionNames = newValue.map(Array.init) ?? []
            }
        }
        /// ``recordSections`` as a flag and an array: reading them at scan time needs no `Set<String>` or optional
        /// metadata, whose first instantiation costs a scan of the process's conformance records (`String: Hashable`).
        private var filtersRecordSections = false
        private var recordSectionNames: [String] = []

        /// Whether the records of the section `name` are registered.
        func registersRecords(of name: String) -> Bool {
            !filtersRecordSections || recordSectionNames.contains(name)
        }
        /// The record sections a scanner of the hive reads; nil for every section.
        var scannedSections: [String]? { filtersRecordSections ? recordSectionNames : nil }
        /// How many diagnostics ``Hive/diagnostics`` keeps: the most recent ones (default 1,000). Older ones
        /// are dropped and counted in ``Hive/droppedDiagnosticCount``; every diagnostic is logged either way.
        public var diagnosticLimit: Int
        /// Whether names are bound to types by reading the loaded images' Swift metadata (the fast path, whose first
        /// answer in each image is checked against the Swift runtime's), or, when `false`, by the runtime's own
        /// look-ups and casts (slower; for diagnosis). Nil, the default, follows the environment variable
        /// `BEEHIVE_RUNTIME_BINDING` (`runtime` turns the fast path off).
        public var bindsNamesFromMetadata: Bool?
        /// Whether the hive's ``Hive/timeline`` records from the start, before the hive's first scan (default
        /// `false`; the shared hive's also records when `BEEHIVE_TRACE` names a file). Set it through
        /// ``Hive/bootstrap(_:)`` to see the shared hive's first scan and registrations.
        public var recordsTimeline: Bool
        /// Where the hive's counters and timers go (`Docs/Telemetry.md`); nil, the default, for the factory the
        /// program bootstrapped (`MetricsSystem.bootstrap`), read at each event: no-ops when it bootstrapped none.
        /// Set it in a plugin host on `BeeHiveDynamic`, whose copy of swift-metrics the program's bootstrap does not
        /// reach, and in tests.
        public var metricsFactory: (any MetricsFactory)? {
            get { telemetryTargets?.metricsFactory }
            set { telemetryTargets = TelemetryTargets(metricsFactory: newValue, tracer: tracer) }
        }
        /// Where the hive's spans go (plugin operations and module events); nil, the default, for the tracer the
        /// program bootstrapped (`InstrumentationSystem.bootstrap`): no-ops when it bootstrapped none.
        public var tracer: (any Tracer)? {
            get { telemetryTargets?.tracer }
            set { telemetryTargets = TelemetryTargets(metricsFactory: metricsFactory, tracer: newValue) }
        }
        /// ``metricsFactory`` and ``tracer``, nil when neither is set. In a class: copying and destroying the options
        /// then retains and releases one reference, where two optional existentials made the runtime build their
        /// metadata by name the first time (~21 K instructions in every process that uses the shared hive).
        private(set) var telemetryTargets: TelemetryTargets?

        /// Creates options.
        /// - Parameters:
        ///   - isStrict: Fail loudly on duplicates and rejected entries.
        ///   - logger: Where diagnostics are logged; nil for `Logger(label: "BeeHive")`, made at the first diagnostic.
        ///   - scansLoadedImages: Register the annotation records of the loaded images.
        ///   - scansAllImages: Open every image, not only those with a BeeHive note.
        ///   - recordSections: The record sections to register; nil for all.
        ///   - diagnosticLimit: How many diagnostics to keep in memory.
        ///   - bindsNamesFromMetadata: Bind names from the images' metadata (`true`), by the runtime's look-ups
        ///     (`false`), or as `BEEHIVE_RUNTIME_BINDING` says (nil).
        ///   - recordsTimeline: Start the hive's ``Hive/timeline`` before its first scan.
        ///   - metricsFactory: Where counters and timers go; nil for the program's bootstrapped factory.
        ///   - tracer: Where spans go; nil for the program's bootstrapped tracer.
        public init(
            isStrict: Bool = false, logger: Logger? = nil, scansLoadedImages: Bool = false,
            scansAllImages: Bool = false, recordSections: Set<String>? = nil, diagnosticLimit: Int = 1_000,
            bindsNamesFromMetadata: Bool? = nil, recordsTimeline: Bool = false,
            metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil
        ) {
            telemetryTargets = TelemetryTargets(metricsFactory: metricsFactory, tracer: tracer)
            self.recordsTimeline = recordsTimeline
            self.bindsNamesFromMetadata = bindsNamesFromMetadata
            self.diagnosticLimit = diagnosticLimit
            self.isStrict = isStrict
            self.customLogger = logger
            self.scansLoadedImages = scansLoadedImages
            self.scansAllImages = scansAllImages
            self.recordSections = recordSections
        }
    }
}
