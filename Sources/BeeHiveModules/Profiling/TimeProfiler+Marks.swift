import BeeHive
import Synchronization

extension TimeProfiler {
    /// The module name of the records that ``recordEventTime(_:)`` makes: `(app)`.
    public static let appMarkModule = "(app)"

    /// The event number of the records that ``recordEventTime(_:)`` makes: `-1`, which no module event has.
    public static let appMarkEventValue = -1

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
        let now = Self.now()
        storage.withLock { records in
            // Under the records' lock, so that marks are appended in the order their intervals were measured.
            let elapsed = now &- origin
            let since = lastMark.exchange(elapsed, ordering: .relaxed)
            records.append(
                Record(
                    module: Self.appMarkModule, event: name, eventValue: Self.appMarkEventValue,
                    startNanoseconds: elapsed, durationNanoseconds: elapsed &- since))
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
