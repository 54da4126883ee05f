#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The environment variables BeeHive reads: all of them, in the one place they are read from (the C scanner's
/// constructor reads `BEEHIVE_SCAN` itself, before `main`). Each has an option that wins over it; the table in
/// `Docs/Design.md` ("Environment variables") lists them.
package enum EnvironmentVariable: String, CaseIterable, Sendable {
    /// `1`: the shared hive is strict. Wins: `Hive.bootstrap(_:)` with any options.
    case strict = "BEEHIVE_STRICT"
    /// `dev`, `test`, `stage` or `prod`: a module context's environment. Wins: `ModuleContext(environment:)`.
    case environment = "BEEHIVE_ENV"
    /// `1`: module events are timed. Wins: `TimeProfiler(isEnabled:)`.
    case profile = "BEEHIVE_PROFILE"
    /// `off`: no scan before `main`; `all`: open every image, not only those with a BeeHive note. Read by the C
    /// scanner's constructor. Wins: `Hive.Options.scansAllImages` for hives of one's own.
    case scan = "BEEHIVE_SCAN"
    /// `runtime`: names are bound to types by the Swift runtime's own look-ups (`_typeByName`, `as?`), not from the
    /// images' metadata. Wins: `Hive.Options.bindsNamesFromMetadata`.
    case runtimeBinding = "BEEHIVE_RUNTIME_BINDING"
    /// A file: the shared hive's timeline records from its start and is written there as Chrome Trace Event JSON at
    /// exit. Adds to: `Hive.Options.recordsTimeline`, which starts the timeline without writing a file.
    case trace = "BEEHIVE_TRACE"

    /// The variable's value, or `nil` when it is not set.
    package var value: String? { getenv(rawValue).map { String(cString: $0) } }
}
