import BeeHive
import Dispatch
import FoundationEssentials
import Synchronization

/// Times every module × event on a monotonic clock: BeeHive's `BHTimeProfiler`.
///
/// Off by default (one atomic load per event when off); on with ``isEnabled`` or `BEEHIVE_PROFILE=1`.
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

    private let enabled: Atomic<Bool>
    let origin = TimeProfiler.now()
    let storage = LockedValue<[Record]>([])
    /// When the last mark of ``recordEventTime(_:)`` was made, in nanoseconds since `origin`; 0 before the first.
    let lastMark = Atomic<UInt64>(0)

    /// Creates a profiler.
    /// - Parameter isEnabled: Whether to record; default from `BEEHIVE_PROFILE=1`.
    public init(isEnabled: Bool? = nil) {
        enabled = Atomic(isEnabled ?? (EnvironmentVariable.profile.value == "1"))
    }

    /// Whether handlers are timed.
    public var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// The records so far, in the order handlers finished.
    public var records: [Record] { storage.withLock { $0 } }

    /// Forgets every record.
    public func reset() {
        storage.withLock { records in
            records.removeAll()
            lastMark.store(0, ordering: .relaxed)
        }
    }

    /// A monotonic timestamp in nanoseconds.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func record(module: String, event: ModuleEvent, start: UInt64) {
        let end = Self.now()
        let record = Record(
            module: module, event: event.description, eventValue: event.rawValue,
            startNanoseconds: start &- origin, durationNanoseconds: end &- start)
        storage.withLock { $0.append(record) }
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
