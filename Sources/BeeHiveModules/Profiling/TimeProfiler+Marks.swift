import BeeHive
import Synchronization

extension TimeProfiler {
    /// The module name of the records that ``recordEventTime(_:)`` makes: `(app)`.
    public static let appMarkModule = "(app)"

    /// The event number of the records that ``recordEventTime(_:)`` makes: `-1`, which no module event has.
    public static let appMarkEventValue = -1

    /// The category of the marks' spans on ``timeline``.
    static let markCategory = "mark"

    /// Records a moment of the app's own choosing, under a name: BHTimeProfiler's `recordEventTime:`.
    ///
    /// The record's ``Record/module`` is ``appMarkModule``, its ``Record/event`` the name, its
    /// ``Record/startNanoseconds`` the time since the profiler was made, and its ``Record/durationNanoseconds`` the
    /// time since the previous mark (or since the profiler was made): what BHTimeProfiler prints as each event's
    /// interval. Marks sit among the module × event records in the order they happened, so ``table()`` and
    /// ``json()`` show them. Like those, nothing is recorded while the profiler is off.
    ///
    /// ```swift
    /// let profiler = TimeProfiler(isEnabled: true)
    /// profiler.recordEventTime("config loaded")
    /// profiler.recordEventTime("first screen")
    /// profiler.marks.map(\.event)   // ["config loaded", "first screen"]
    /// ```
    /// - Parameter name: The name, any text.
    public func recordEventTime(_ name: String) {
        guard isEnabled else { return }
        timeline.append { () -> HiveTimeline.Event in
            // Under the timeline's lock, so that marks are kept in the order their intervals were measured and
            // each interval begins where the previous one ended.
            let elapsed = HiveTimeline.now() &- origin
            let since = lastMark.exchange(elapsed, ordering: .relaxed)
            return HiveTimeline.Event(
                name: name, category: Self.markCategory, startNanoseconds: origin &+ since,
                durationNanoseconds: elapsed &- since, thread: marksTrack, arguments: [:])
        }
    }

    /// The records made by ``recordEventTime(_:)``, in order.
    ///
    /// ```swift
    /// for mark in profiler.marks { print(mark.event, mark.durationNanoseconds / 1_000_000, "ms") }
    /// ```
    public var marks: [Record] {
        records.filter { $0.module == Self.appMarkModule && $0.eventValue == Self.appMarkEventValue }
    }
}
