import BeeHive

extension ModuleEvent {
    /// The category of a module's handling of an event on a timeline.
    static let timelineCategory = "module"
}

extension ModuleManager {
    /// Runs one handler of `entry` for `event` as a span named `<event> <module>` (with `suffix`) on the hive's
    /// timeline and the profiler's, those of them that record: one event for both. Its arguments are the module,
    /// its level and priority, whether it is async, and the event's name and number.
    /// - Parameters:
    ///   - entry: The module.
    ///   - event: The event.
    ///   - suffix: Added to the span's name (` subscription` for a subscription's handler).
    ///   - handler: The handler; it may discard the span (a hook the module does not implement).
    /// - Returns: What `handler` returns.
    func timed<Result>(
        _ entry: ModuleEntry, _ event: ModuleEvent, suffix: String = "",
        _ handler: (inout HiveTimeline.SpanArguments) async -> Result
    ) async -> Result {
        await HiveTimeline.span(
            in: hive.timeline, profiler.timeline, "\(event) \(entry.name)\(suffix)",
            category: ModuleEvent.timelineCategory
        ) { arguments in
            if arguments.isRecording {
                arguments["module"] = .string(entry.name)
                arguments["level"] = .integer(entry.level)
                arguments["priority"] = .integer(entry.priority)
                arguments["async"] = .integer(entry.isAsync ? 1 : 0)
                arguments["event"] = .string(event.description)
                arguments["eventValue"] = .integer(event.rawValue)
            }
            return await handler(&arguments)
        }
    }
}
