import BeeHive
import Tracing

extension ModuleEvent {
    /// The category of a module's handling of an event on a timeline.
    static let timelineCategory = "module"
}

extension ModuleManager {
    /// Runs one handler of `entry` for `event` as a span named `<event> <module>` (with `suffix`) on the hive's
    /// timeline and the profiler's, those of them that record: one event for both. Its arguments are the module,
    /// its level and priority, whether it is async, and the event's name and number. The same handler is a span
    /// `beehive.module.<event>` of the hive's tracer (swift-distributed-tracing), with the module's name, level
    /// and priority; a hook the module turns out not to implement is marked `beehive.module.implemented: false`
    /// (once per module and hook: it is not called again).
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
        let attributes: () -> [String: SpanAttribute] = {
            [
                "beehive.module.name": .string(entry.name), "beehive.module.level": .int64(Int64(entry.level)),
                "beehive.module.priority": .int64(Int64(entry.priority)),
            ]
        }
        let name = { "beehive.module.\(event)" + (suffix.isEmpty ? "" : ".subscription") }
        return await hive.telemetry.span(name(), attributes()) { span in
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
                let result = await handler(&arguments)
                if arguments.isDiscarded { span.attributes["beehive.module.implemented"] = false }
                if let error = arguments.error { HiveTelemetry.fail(span, error) }
                return result
            }
        }
    }
}
