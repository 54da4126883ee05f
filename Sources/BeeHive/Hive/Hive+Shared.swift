internal import _BeeHiveDiscovery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Hive {
    private struct Bootstrap {
        /// The options of ``bootstrap(_:)``, in a class: an optional `Options` would make the runtime build its
        /// metadata by name at the shared hive's creation (~40 K instructions, in every process that uses it).
        var options: BootstrapOptions?
        var sharedCreated = false
    }

    private final class BootstrapOptions: Sendable {
        let options: Options

        init(_ options: Options) { self.options = options }
    }

    private static let bootstrapState = LockedValue(Bootstrap())

    /// The shared hive once it exists; `nil` before its first use.
    private static let createdShared = LockedValue<Hive?>(nil)

    /// ``shared`` if something has used it already; never creates it. Other products (the router) read the
    /// shared hive's declarations through this, so that using them does not bootstrap the shared hive.
    package static var sharedIfCreated: Hive? { createdShared.withLock { $0 } }

    /// The process-wide hive, holding the annotation records of every loaded image.
    ///
    /// The records were found by a constructor before `main`; they are parsed and registered the
    /// first time `shared` is used, so that diagnostics go through the logging system `main` set up.
    /// Images loaded later with `dlopen` are added by ``rescan()``.
    public static let shared: Hive = {
        let bootstrapped = bootstrapState.withLock { state in
            state.sharedCreated = true
            return state.options
        }
        var resolved = bootstrapped?.options ?? Options()
        if bootstrapped == nil, EnvironmentVariable.strict.value == "1" {
            resolved.isStrict = true
        }
        resolved.scansLoadedImages = true
        let tracePath = EnvironmentVariable.trace.value.flatMap { $0.isEmpty ? nil : $0 }
        let timeline = HiveTimeline(eventLimit: HiveTimeline.defaultEventLimit, outputPath: tracePath)
        if resolved.recordsTimeline || tracePath != nil {
            timeline.start()
            timeline.recordWalkBeforeMain(ImageScanner.startup.statistics)
        }
        let hive = Hive(options: resolved, adopting: ImageScanner.startup, timeline: timeline)
        createdShared.withLock { $0 = hive }
        if tracePath != nil { atexit { Hive.writeTimelineAtExit() } }
        return hive
    }()

    /// Sets the options of ``shared``; call once, before the shared hive is first used.
    ///
    /// Like swift-log's `LoggingSystem.bootstrap`: a second call, or a call after ``shared`` was
    /// used, is refused.
    ///
    /// ```swift
    /// try Hive.bootstrap(.init(isStrict: true, logger: Logger(label: "app.beehive")))
    /// ```
    /// - Parameter options: The options (``Options-swift.struct/scansLoadedImages`` is always on for `shared`).
    /// - Throws: ``HiveError/Code-swift.struct/alreadyBootstrapped`` when too late or called twice.
    public static func bootstrap(_ options: Options) throws(HiveError) {
        let refusal: String? = bootstrapState.withLock { state in
            if state.sharedCreated {
                return "expected bootstrap before the first use of Hive.shared; it was already used"
            }
            if state.options != nil { return "expected one call of Hive.bootstrap; this is the second" }
            state.options = BootstrapOptions(options)
            return nil
        }
        if let refusal { throw HiveError(.alreadyBootstrapped, refusal) }
    }
}
