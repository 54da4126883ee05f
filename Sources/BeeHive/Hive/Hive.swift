import Logging
internal import _BeeHiveDiscovery

/// A container of services, modules and routes: BeeHive's `BeeHive` and `BHServiceManager` in one.
///
/// ``shared`` holds everything the annotation records of the loaded images declare: they are
/// found before `main` and registered the first time the shared hive is used. Create other
/// hives for tests or to isolate a subsystem; they start empty unless
/// ``Options-swift.struct/scansLoadedImages`` is set.
///
/// ```swift
/// // In a C target:  BH_SERVICE(App.UserTrackService, App.UserTrackServiceImpl)
/// let tracker = try Hive.shared.createService(UserTrackService.self)
/// tracker.track("launch")
/// ```
public final class Hive: Sendable {
    /// The options this hive was created with.
    public let options: Options
    /// What this hive did and when: stopped unless started (``HiveTimeline/start()``), set by
    /// ``Options-swift.struct/recordsTimeline``, or, for ``shared``, by `BEEHIVE_TRACE=path.json`.
    public let timeline: HiveTimeline
    let state = LockedValue(RegistryState())
    let scanner: ImageScanner?
    /// Held while a scan's batch is registered, so that a rescan returns only when every batch taken before it
    /// is in the registry. Counts the rescans (a value with storage of its own: ThreadSanitizer confuses an
    /// empty one with the lock beside it).
    let scanning = LockedValue(0)
    /// The plugins loaded into this hive (``plugins``).
    let pluginTable = PluginTable()
    /// The uses of plugins' services that a retire waits for (`withService(_:)`).
    let leases = LeaseTable()
    /// The versions of service APIs that loaded images declare (`@BeeHiveAPI`), which plugins are checked against.
    let servedAPIs = LockedValue(ServedAPIs())
    private let observersBox = LockedValue<ServiceObservers?>(nil)

    /// The observers of service registrations, if any was ever added.
    var existingServiceObservers: ServiceObservers? { observersBox.withLock { $0 } }

    /// The observers of service registrations and their event queue, made when first asked for.
    var serviceObservers: ServiceObservers {
        let table = pluginTable
        return observersBox.withLock { observers in
            if let observers { return observers }
            let made = ServiceObservers { table.path(ofImage: $0) }
            observers = made
            return made
        }
    }

    /// Creates a hive.
    ///
    /// - Parameter options: Strictness, logging, and whether to register the annotation records of
    ///   the loaded images (then scanned now, with a scanner of the hive's own).
    public init(options: Options = Options()) {
        self.options = options
        self.timeline = HiveTimeline(eventLimit: HiveTimeline.defaultEventLimit, outputPath: nil)
        if options.recordsTimeline { timeline.start() }
        self.scanner =
            options.scansLoadedImages
            ? ImageScanner(scanAllImages: options.scansAllImages, keepingOnly: options.scannedSections) : nil
        state.withLock { $0.diagnostics.limit = max(0, options.diagnosticLimit) }
        if let scanner {
            timeline.span("hive.start", category: "scan") { _ in log(ingest(scanRecorded(scanner)).1) }
        }
    }

    init(options: Options, adopting scanner: ImageScanner, timeline: HiveTimeline) {
        self.options = options
        self.timeline = timeline
        self.scanner = scanner
        state.withLock { $0.diagnostics.limit = max(0, options.diagnosticLimit) }
        timeline.span("hive.start", category: "scan") { _ in log(ingest(scanRecorded(scanner)).1) }
    }

    var logger: Logger { options.logger }

    /// Where counters, timers and spans go.
    package var telemetry: HiveTelemetry {
        HiveTelemetry(targets: options.telemetryTargets)
    }

    /// The problems recorded so far, oldest first: the most recent
    /// ``Options-swift.struct/diagnosticLimit`` of them (every one is logged when recorded).
    public var diagnostics: [Diagnostic] { state.withLock { $0.diagnostics.elements } }

    /// How many diagnostics were dropped from ``diagnostics`` to keep it within
    /// ``Options-swift.struct/diagnosticLimit`` (they were logged).
    public var droppedDiagnosticCount: Int { state.withLock { $0.diagnostics.dropped } }

    /// Records problems and logs them. Call without the lock held.
    package func record(_ diagnostics: [Diagnostic]) {
        keep(diagnostics)
        log(diagnostics)
    }

    /// Keeps problems in ``diagnostics``.
    func keep(_ diagnostics: [Diagnostic]) {
        guard !diagnostics.isEmpty else { return }
        state.withLock { $0.diagnostics.append(contentsOf: diagnostics) }
        let telemetry = telemetry
        for diagnostic in diagnostics {
            telemetry.count(
                "beehive.diagnostics", [("code", "\(diagnostic.code)"), ("severity", "\(diagnostic.severity)")])
        }
    }

    /// Logs problems. Call without any lock held: the log handler is user code.
    func log(_ diagnostics: [Diagnostic]) {
        for diagnostic in diagnostics {
            let level: Logger.Level =
                diagnostic.severity == .warning ? .warning : options.isStrict ? .critical : .error
            var metadata: Logger.Metadata = ["code": "\(diagnostic.code)"]
            if let source = diagnostic.source { metadata["source"] = "\(source)" }
            logger.log(level: level, "\(diagnostic.message)", metadata: metadata)
        }
    }

    /// The severity of a duplicate: a warning, or an error in strict mode.
    package var duplicateSeverity: Diagnostic.Severity { options.isStrict ? .error : .warning }
}
