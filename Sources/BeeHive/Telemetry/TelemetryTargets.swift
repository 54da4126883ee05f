import CoreMetrics
import Tracing

/// The metrics factory and the tracer that a hive's options name (``Hive/Options-swift.struct/metricsFactory``,
/// ``Hive/Options-swift.struct/tracer``); immutable, made anew when either is set.
package final class TelemetryTargets: Sendable {
    let metricsFactory: (any MetricsFactory)?
    let tracer: (any Tracer)?

    /// The targets, or nil when neither is set (the options then name nothing, like their default).
    init?(metricsFactory: (any MetricsFactory)?, tracer: (any Tracer)?) {
        guard metricsFactory != nil || tracer != nil else { return nil }
        self.metricsFactory = metricsFactory
        self.tracer = tracer
    }
}
