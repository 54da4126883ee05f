#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A recording of what a hive did and when: spans of work on a monotonic clock, written as Chrome Trace Event JSON
/// (``chromeTraceJSON()``) for Perfetto or `chrome://tracing`.
///
/// Every hive has one (``Hive/timeline``); it records nothing until started. The shared hive's starts before its
/// first scan when the environment variable `BEEHIVE_TRACE` names a file, which is written when the process exits;
/// ``Hive/Options-swift.struct/recordsTimeline`` does the same for any hive (through ``Hive/bootstrap(_:)`` for the
/// shared one). What is recorded: the scan before `main` and each scan since, each image's records parsed, each
/// batch of registrations, a service's binding and its singleton's creation at first use, plugin loads, upgrades and
/// retirements, and (with `BeeHiveModules`) each module's setUp, init and splash with its level and priority.
///
/// Spans on one thread nest: each is recorded by a begin and an end around the work, so a span lies wholly within
/// any span that was open when it began. Async work (a module's hooks) is drawn on a track of its own task rather
/// than on an operating-system thread, which the task may leave at each `await`.
///
/// While stopped, recording costs one atomic load per span, and none on the path that returns a cached instance.
/// The timeline keeps at most ``eventLimit`` events; later ones are counted in ``droppedEventCount`` and the
/// output says so.
///
/// ```swift
/// let hive = Hive()
/// hive.timeline.start()
/// try hive.register(service: "App.Clock", impl: "App.SystemClock")
/// _ = try hive.createService(named: "App.Clock")
/// try hive.timeline.write(to: "/tmp/startup.json")   // open it in https://ui.perfetto.dev
/// ```
public final class HiveTimeline: Sendable {
    /// One span of work.
    public struct Event: Sendable, Hashable {
        /// What was done: `scan`, `ingest`, `register`, `service.bind`, `plugin.load`, `setUp App.FeedModule`, ….
        public let name: String
        /// The kind of work: `scan`, `registration`, `binding`, `plugin`, `module`, `mark` or `app`.
        public let category: String
        /// When the work began, in nanoseconds of `CLOCK_MONOTONIC`.
        public let startNanoseconds: UInt64
        /// How long the work took, in nanoseconds.
        public let durationNanoseconds: UInt64
        /// The operating-system thread the work ran on (its `gettid()`), or a track of one task
        /// (``isTaskTrack``).
        public let thread: Int
        /// What the work was about: an image's path, a service's name, a module's level and priority, counts.
        public let arguments: [String: Value]

        /// Whether ``thread`` is the track of one task rather than an operating-system thread.
        public var isTaskTrack: Bool { thread >= HiveTimeline.firstTaskTrack }

        /// When the work ended, in nanoseconds of `CLOCK_MONOTONIC`.
        public var endNanoseconds: UInt64 { startNanoseconds &+ durationNanoseconds }

        package init(
            name: String, category: String, startNanoseconds: UInt64, durationNanoseconds: UInt64, thread: Int,
            arguments: [String: Value]
        ) {
            self.name = name
            self.category = category
            self.startNanoseconds = startNanoseconds
            self.durationNanoseconds = durationNanoseconds
            self.thread = thread
            self.arguments = arguments
        }
    }

    /// A value of an event's ``Event/arguments``.
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        /// Text: a path, a name.
        case string(String)
        /// A number: a count, a level, a priority.
        case integer(Int)

        /// The value as text.
        public var description: String {
            switch self {
            case .string(let text): text
            case .integer(let number): String(number)
            }
        }
    }

    /// The arguments of a span being recorded: what the work sets as it learns it (counts, results). Setting one
    /// while the timeline is stopped does nothing.
    public struct SpanArguments: Sendable {
        var values: [String: Value]?
        /// Whether ``discard()`` was called, recording or not.
        package private(set) var isDiscarded = false
        /// The error ``recordError(_:)`` was given, recording or not.
        package private(set) var error: (any Error)?

        init(recording: Bool) { values = recording ? [:] : nil }

        /// Whether the span is being recorded: compute costly arguments only then.
        public var isRecording: Bool { values != nil }

        /// The argument named `key`.
        /// - Parameter key: The argument's name.
        public subscript(key: String) -> Value? {
            get { values?[key] }
            set { values?[key] = newValue }
        }

        /// Leaves the span out of the timeline: the work turned out not to be worth a span (a hook a module does not
        /// implement).
        public mutating func discard() {
            values = nil
            isDiscarded = true
        }

        /// Records that the work failed: the argument `error`, when recording, and for the span's other
        /// observers (a tracer's span is marked failed).
        package mutating func recordError(_ error: any Error) {
            self.error = error
            self["error"] = .string("\(error)")
        }
    }

    /// The number of events a timeline keeps by default: about 100 bytes each and their arguments.
    public static let defaultEventLimit = 100_000

    /// The most events this timeline keeps; later ones are counted in ``droppedEventCount``.
    public let eventLimit: Int

    /// 1 while recording.
    private let recording = RelaxedWord()
    let buffer: LockedValue<Buffer>
    let outputPath: String?

    struct Buffer {
        var events: [Event] = []
        var dropped = 0
    }

    /// Creates a timeline, stopped.
    /// - Parameter eventLimit: The most events to keep; at least 1.
    public convenience init(eventLimit: Int = HiveTimeline.defaultEventLimit) {
        self.init(eventLimit: eventLimit, outputPath: nil)
    }

    init(eventLimit: Int, outputPath: String?) {
        self.eventLimit = max(1, eventLimit)
        self.outputPath = outputPath
        buffer = LockedValue(Buffer())
    }

    /// Whether spans are recorded now.
    public var isRecording: Bool {
        @inline(__always) get { recording.value != 0 }
    }

    /// Starts recording; the events recorded before are kept.
    public func start() { recording.store(1) }

    /// Stops recording; the events recorded so far are kept. A span open at this moment is still recorded when it
    /// ends.
    public func stop() { recording.store(0) }

    /// Forgets every event and the count of dropped ones.
    public func reset() { buffer.withLock { $0 = Buffer() } }

    /// The events so far, in the order they ended.
    public var events: [Event] { buffer.withLock { $0.events } }

    /// How many events were not kept because the timeline held ``eventLimit`` of them.
    public var droppedEventCount: Int { buffer.withLock { $0.dropped } }

    /// Records `body` as a span named `name` on the calling thread (or on the track of the task running it).
    ///
    /// The span begins before `body` and ends after it, so spans recorded inside `body` nest in it. When `body`
    /// throws, the span is recorded with the argument `error`. No lock is held while `body` runs.
    ///
    /// ```swift
    /// let config = try hive.timeline.span("config.load") { arguments in
    ///     let config = try Config.load()
    ///     arguments["entries"] = .integer(config.count)
    ///     return config
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The span's name; evaluated only while recording.
    ///   - category: The kind of work (`app` unless given).
    ///   - body: The work; it may set the span's arguments.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @inline(__always)
    public func span<Result, Failure: Error>(
        _ name: @autoclosure () -> String, category: String = "app",
        _ body: (inout SpanArguments) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard isRecording else {
            var none = SpanArguments(recording: false)
            return try body(&none)
        }
        return try recordedSpan(name(), category: category, body)
    }

    private func recordedSpan<Result, Failure: Error>(
        _ name: String, category: String, _ body: (inout SpanArguments) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let thread = Self.currentThread()
        let start = Self.now()
        var arguments = SpanArguments(recording: true)
        do {
            let result = try body(&arguments)
            record(name, category, start: start, thread: thread, arguments)
            return result
        } catch {
            arguments.recordError(error)
            record(name, category, start: start, thread: thread, arguments)
            throw error
        }
    }

    private func record(_ name: String, _ category: String, start: UInt64, thread: Int, _ arguments: SpanArguments) {
        guard let values = arguments.values else { return }
        append(
            Event(
                name: name, category: category, startNanoseconds: start, durationNanoseconds: Self.now() &- start,
                thread: thread, arguments: values))
    }

    /// Keeps `event`, or counts it as dropped when the timeline is full.
    package func append(_ event: Event) {
        append(making: { event })
    }

    /// Keeps the event `make` returns, made under the timeline's lock (so that events made from a shared counter are
    /// kept in the counter's order); `make` must not call user code.
    package func append(making make: () -> Event) {
        buffer.withLock { buffer in
            let event = make()
            guard buffer.events.count < eventLimit else {
                buffer.dropped += 1
                return
            }
            buffer.events.append(event)
        }
    }

    /// Forgets every event, then runs `body` under the timeline's lock; `body` must not call user code.
    package func reset(_ body: () -> Void) {
        buffer.withLock { buffer in
            buffer = Buffer()
            body()
        }
    }

    // MARK: - Clock and threads

    /// Now, in nanoseconds of `CLOCK_MONOTONIC`.
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// The first number of a task's track: above every Linux thread id (`pid_max` is at most 2^22).
    package static let firstTaskTrack = 1 << 30

    private static let taskTracks = RelaxedWord()

    /// A new track number, for a task or for a sequence of marks.
    package static func newTrack() -> Int { firstTaskTrack + Int(taskTracks.next()) }

    /// glibc's `gettid` (2.30 and later), which the Swift module of the C library does not declare.
    private static let gettid: (@convention(c) () -> pid_t)? = dlsym(nil, "gettid").map {
        unsafeBitCast($0, to: (@convention(c) () -> pid_t).self)
    }

    /// The id of the calling operating-system thread: its `gettid()`, as `ps -L` and Perfetto show it; without
    /// `gettid`, a number made from `pthread_self()` below ``firstTaskTrack``.
    static func threadID() -> Int {
        if let gettid { return Int(gettid()) }
        return Int(UInt(pthread_self()) % UInt(firstTaskTrack))
    }

    /// Where a synchronous span of the caller is drawn: on the track of the current task if that task opened one,
    /// else on the operating-system thread (a synchronous span never leaves its thread).
    package static func currentThread() -> Int {
        if let track = TaskTrack.current, track.isOwned { return track.id }
        return threadID()
    }
}
