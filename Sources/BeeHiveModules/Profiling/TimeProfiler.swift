import BeeHive
import FoundationEssentials
import Synchronization

/// Times every module × event on a monotonic clock: BeeHive's `BHTimeProfiler`.
///
/// Off by default (when it and the hive's timeline are off, two atomic loads per handler); on with ``isEnabled`` or
/// `BEEHIVE_PROFILE=1`. Its records are read from the events of its own ``timeline``: the same events, one per
/// module × event, that the manager's hive keeps in its `Hive.timeline` while that one records;
/// `profiler.timeline.chromeTraceJSON()` draws them. Like any timeline, it keeps at most
/// `HiveTimeline.defaultEventLimit` events.
///
/// ```swift
/// let manager = ModuleManager(profiler: TimeProfiler(isEnabled: true))
/// manager.start()
/// print(manager.profiler.table())
/// ```
public final class TimeProfiler: Sendable {
    /// One module's handling of one event.
    public struct Record: Sendable, Hashable, Codable {
        /// The module's name.
        public let module: String
        /// The event's name.
        public let event: String
        /// The event's number.
        public let eventValue: Int
        /// When the handler started, in nanoseconds since the profiler was created.
        public let startNanoseconds: UInt64
        /// How long the handler ran, in nanoseconds.
        public let durationNanoseconds: UInt64
    }

    /// The events the records are read from: a span per module × event (category `module`) and per mark (category
    /// `mark`), recorded while the profiler is enabled.
    public let timeline: HiveTimeline
    /// When the profiler was created, on the timeline's clock.
    let origin = HiveTimeline.now()
    /// When the last mark of ``recordEventTime(_:)`` was made, in nanoseconds since `origin`; 0 before the first.
    let lastMark = Atomic<UInt64>(0)
    /// The track the marks are drawn on.
    let marksTrack = HiveTimeline.newTrack()

    /// Creates a profiler.
    /// - Parameter isEnabled: Whether to record; default from `BEEHIVE_PROFILE=1`.
    public init(isEnabled: Bool? = nil) {
        timeline = HiveTimeline()
        if isEnabled ?? (EnvironmentVariable.profile.value == "1") { timeline.start() }
    }

    /// Whether handlers are timed.
    public var isEnabled: Bool {
        get { timeline.isRecording }
        set { newValue ? timeline.start() : timeline.stop() }
    }

    /// The records so far, in the order handlers finished. A handler that threw has no record.
    public var records: [Record] { timeline.events.compactMap { Record($0, origin: origin) } }

    /// Forgets every record.
    public func reset() {
        timeline.reset { lastMark.store(0, ordering: .relaxed) }
    }

    /// A table of the records: module, event, start and duration in milliseconds, and a total.
    public func table() -> String {
        let records = self.records
        let moduleWidth = max(6, records.map(\.module.count).max() ?? 0)
        let eventWidth = max(5, records.map(\.event.count).max() ?? 0)
        func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(0, width - s.count)) }
        func ms(_ ns: UInt64) -> String {
            let value = Double(ns) / 1_000_000
            let text = String(Int((value * 1000).rounded()))
            let padded = String(repeating: "0", count: max(0, 4 - text.count)) + text
            return "\(padded.dropLast(3)).\(padded.suffix(3))"
        }
        var lines = ["\(pad("module", moduleWidth))  \(pad("event", eventWidth))  start ms  duration ms"]
        for r in records {
            lines.append(
                "\(pad(r.module, moduleWidth))  \(pad(r.event, eventWidth))  \(pad(ms(r.startNanoseconds), 8))  "
                    + ms(r.durationNanoseconds))
        }
        let total = records.reduce(UInt64(0)) { $0 + $1.durationNanoseconds }
        lines.append("\(pad("total", moduleWidth))  \(pad("", eventWidth))  \(pad("", 8))  \(ms(total))")
        return lines.joined(separator: "\n")
    }

    /// The records as JSON: `{"records":[{"module":…,"event":…,"eventValue":…,"startNanoseconds":…,"durationNanoseconds":…}]}`.
    public func json() throws -> Data {
        struct Export: Encodable { let records: [Record] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(Export(records: records))
    }
}

extension TimeProfiler.Record {
    /// The record of a module × event span or of a mark; nil for any other event, and for a handler that threw.
    init?(_ event: HiveTimeline.Event, origin: UInt64) {
        switch event.category {
        case ModuleEvent.timelineCategory:
            guard event.arguments["error"] == nil, case .string(let module)? = event.arguments["module"],
                case .string(let name)? = event.arguments["event"],
                case .integer(let value)? = event.arguments["eventValue"]
            else { return nil }
            self.init(
                module: module, event: name, eventValue: value, startNanoseconds: event.startNanoseconds &- origin,
                durationNanoseconds: event.durationNanoseconds)
        case TimeProfiler.markCategory:
            // A mark is the interval since the previous one: its record's start is the mark's moment, the span's end.
            self.init(
                module: TimeProfiler.appMarkModule, event: event.name, eventValue: TimeProfiler.appMarkEventValue,
                startNanoseconds: event.endNanoseconds &- origin, durationNanoseconds: event.durationNanoseconds)
        default:
            return nil
        }
    }
}
