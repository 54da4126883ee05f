extension HiveTimeline {
    /// Records `body`, async work, as a span on the track of the current task, in `first` and `second` (those of
    /// them that are recording): one event, kept by both.
    ///
    /// An async span may resume on another thread after each `await`, so it is drawn on a track of its task, not
    /// on a thread. A task that already opened a track (an enclosing span) draws on it again, so the spans nest;
    /// any other task (a child task running concurrently) opens a track of its own, so that spans of concurrent
    /// tasks never share one. The synchronous spans recorded inside `body` by the same task are drawn on its track.
    /// - Parameters:
    ///   - first: A timeline.
    ///   - second: Another timeline, if any (a profiler's).
    ///   - name: The span's name; evaluated only while one of them records.
    ///   - category: The kind of work.
    ///   - body: The work; it may set the span's arguments, or discard the span.
    /// - Returns: What `body` returns.
    package static func span<Result>(
        in first: HiveTimeline, _ second: HiveTimeline?, _ name: @autoclosure () -> String, category: String,
        _ body: (inout SpanArguments) async -> Result
    ) async -> Result {
        let recordsFirst = first.isRecording
        let recordsSecond = second?.isRecording ?? false
        guard recordsFirst || recordsSecond else {
            var none = SpanArguments(recording: false)
            return await body(&none)
        }
        let name = name()
        var arguments = SpanArguments(recording: true)
        let result: Result
        let start: UInt64
        let track: Int
        if let current = TaskTrack.current, current.isOwned {
            track = current.id
            start = now()
            result = await body(&arguments)
        } else {
            let opened = TaskTrack(id: newTrack(), owner: TaskTrack.currentTask)
            track = opened.id
            start = now()
            result = await TaskTrack.$current.withValue(opened) { await body(&arguments) }
        }
        guard let values = arguments.values else { return result }
        let event = Event(
            name: name, category: category, startNanoseconds: start, durationNanoseconds: now() &- start,
            thread: track, arguments: values)
        if recordsFirst { first.append(event) }
        if recordsSecond { second?.append(event) }
        return result
    }
}

/// The track on which one task draws its spans (``HiveTimeline/span(in:_:_:category:_:)``).
///
/// Bound as a task-local value, which child tasks inherit: a track is used only by the task that opened it (its
/// `owner`), so that concurrent child tasks never draw on their parent's track.
package final class TaskTrack: Sendable {
    /// The track of the current task or of one of its ancestors, if any opened one.
    @TaskLocal package static var current: TaskTrack?

    /// The track's number, above every thread id.
    let id: Int
    /// The hash of the task that opened the track (a task's hash is its address). A task that inherits the track
    /// was made while its parent lived, so it has another address; only a descendant made after the owner ended
    /// could reuse the owner's address, and then its spans would be drawn on the owner's track.
    let owner: Int?

    init(id: Int, owner: Int?) {
        self.id = id
        self.owner = owner
    }

    /// The hash of the current task; nil outside any task.
    static var currentTask: Int? { withUnsafeCurrentTask { $0?.hashValue } }

    /// Whether the current task opened this track.
    var isOwned: Bool { owner != nil && Self.currentTask == owner }
}
