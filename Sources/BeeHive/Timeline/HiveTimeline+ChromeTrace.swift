internal import _BeeHiveFileFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension HiveTimeline {
    /// The events as Chrome Trace Event JSON, for Perfetto (<https://ui.perfetto.dev>) or `chrome://tracing`.
    ///
    /// An object with `traceEvents`: one complete event (`"ph":"X"`) per span, with `name`, `cat`, `ts` and `dur` in
    /// microseconds of `CLOCK_MONOTONIC` (to the nanosecond), `pid`, `tid` and `args`; then metadata events (`"ph":"M"`)
    /// naming the process, the main thread and each task's track (`task: ` and the name of its first outermost span;
    /// `marks` for a profiler's marks). In `otherData`: the clock, ``eventLimit``, the events kept and
    /// ``droppedEventCount`` (and a `note` when events were dropped). Events are sorted by thread, then by start, the
    /// longer first.
    ///
    /// ```swift
    /// let json = hive.timeline.chromeTraceJSON()
    /// ```
    /// - Returns: The JSON text.
    public func chromeTraceJSON() -> String {
        let (events, dropped) = buffer.withLock { ($0.events, $0.dropped) }
        let sorted = events.sorted(by: Self.isDrawnBefore)
        let pid = Int(getpid())
        var out = "{\"traceEvents\":[\n"
        var first = true
        func add(_ line: String) {
            if !first { out += ",\n" }
            first = false
            out += line
        }
        var trackNames: [Int: String] = [:]
        for event in sorted {
            var line =
                "{\"name\":\(JSONString.quoted(event.name)),\"cat\":\(JSONString.quoted(event.category)),\"ph\":\"X\""
            line += ",\"ts\":\(Self.microseconds(event.startNanoseconds))"
            line += ",\"dur\":\(Self.microseconds(event.durationNanoseconds)),\"pid\":\(pid),\"tid\":\(event.thread)"
            line += ",\"args\":{"
            line += event.arguments.sorted { $0.key < $1.key }.map { key, value in
                switch value {
                case .string(let text): "\(JSONString.quoted(key)):\(JSONString.quoted(text))"
                case .integer(let number): "\(JSONString.quoted(key)):\(number)"
                }
            }.joined(separator: ",")
            line += "}}"
            add(line)
            // Sorted by start, the longer first: a track's first event is its outermost.
            if event.isTaskTrack, trackNames[event.thread] == nil {
                trackNames[event.thread] = event.category == "mark" ? "marks" : "task: " + event.name
            }
        }
        let program = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        func metadata(_ kind: String, tid: Int, _ name: String) {
            add(
                "{\"name\":\"\(kind)\",\"ph\":\"M\",\"pid\":\(pid),\"tid\":\(tid),\"args\":{\"name\":\(JSONString.quoted(name))}}"
            )
        }
        metadata("process_name", tid: pid, program ?? "process \(pid)")
        metadata("thread_name", tid: pid, "main thread")
        for (track, name) in trackNames.sorted(by: { $0.key < $1.key }) { metadata("thread_name", tid: track, name) }
        out +=
            "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"producer\":\"BeeHive\",\"clock\":\"CLOCK_MONOTONIC\""
        out += ",\"eventLimit\":\(eventLimit),\"events\":\(events.count),\"droppedEvents\":\(dropped)"
        if dropped > 0 {
            let note = "the timeline kept its limit of \(eventLimit) events; \(dropped) later events were dropped"
            out += ",\"note\":\(JSONString.quoted(note))"
        }
        out += "}}\n"
        return out
    }

    /// Writes ``chromeTraceJSON()`` to a file: to a temporary file beside it, then renamed, so that a reader never
    /// sees half of it.
    ///
    /// ```swift
    /// try Hive.shared.timeline.write(to: "/tmp/app-trace.json")
    /// ```
    /// - Parameter path: The file; nil for the one `BEEHIVE_TRACE` named (the shared hive's timeline only).
    /// - Throws: ``HiveError/Code-swift.struct/timelineNotWritten`` when no path was given or named, or the file
    ///   could not be written (the message says why).
    public func write(to path: String? = nil) throws(HiveError) {
        guard let path = path ?? outputPath else {
            throw HiveError(
                .timelineNotWritten,
                "expected a path to write the timeline to; none was given, and BEEHIVE_TRACE named none for this hive")
        }
        let json = chromeTraceJSON()
        let temporary = "\(path).\(getpid()).tmp"
        func failure(_ step: String) -> HiveError {
            let reason = String(cString: strerror(errno))
            return HiveError(
                .timelineNotWritten, "expected to write the timeline to \(path); \(step) failed: \(reason)")
        }
        guard let file = fopen(temporary, "w") else { throw failure("creating \(temporary)") }
        let written = json.utf8CString.withUnsafeBufferPointer { bytes in
            fwrite(bytes.baseAddress, 1, bytes.count - 1, file)
        }
        let complete = written == json.utf8.count
        let closed = fclose(file) == 0
        guard complete, closed else {
            let error = failure("writing \(temporary)")
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("renaming \(temporary)")
            unlink(temporary)
            throw error
        }
    }

    /// Whether `a` comes before `b` in the output: by thread, then by start, the longer first (a parent before its
    /// children).
    static func isDrawnBefore(_ a: Event, _ b: Event) -> Bool {
        if a.thread != b.thread { return a.thread < b.thread }
        if a.startNanoseconds != b.startNanoseconds { return a.startNanoseconds < b.startNanoseconds }
        return a.durationNanoseconds > b.durationNanoseconds
    }

    /// `nanoseconds` as microseconds with three decimals.
    static func microseconds(_ nanoseconds: UInt64) -> String {
        let fraction = String(nanoseconds % 1000)
        return "\(nanoseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
