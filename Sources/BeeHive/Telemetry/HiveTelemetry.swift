import CoreMetrics
import Tracing
internal import _BeeHiveRuntime

/// Where a hive's counters, timers and spans go: swift-metrics and swift-distributed-tracing, through the factory
/// and the tracer of its options, or else the ones the program bootstrapped (`MetricsSystem.bootstrap`,
/// `InstrumentationSystem.bootstrap`). A program that bootstraps nothing pays for no-ops.
///
/// Only what does work is counted: registrations, plugin operations, instances made, failed resolves and
/// diagnostics. A resolve answered by a shared instance that already exists is not: it is the hot path, and stays
/// as cheap as without metrics. Each metric is made when its event happens (events are rare), so that a factory
/// bootstrapped after the hive was made is the one used. The names and dimensions are in `Docs/Telemetry.md`.
package struct HiveTelemetry: Sendable {
    /// The metrics factory and the tracer of the options, if any was set.
    let targets: TelemetryTargets?

    /// The factory metrics are made with now.
    private var factory: any MetricsFactory { targets?.metricsFactory ?? MetricsSystem.factory }

    /// Adds `amount` to the counter `label` with `dimensions`; nothing when `amount` is 0, or when the factory is
    /// swift-metrics' no-op one (nothing bootstrapped: no counter, no dimensions made).
    func count(_ label: String, _ dimensions: @autoclosure () -> [(String, String)] = [], by amount: Int = 1) {
        guard amount > 0 else { return }
        let factory = factory
        guard !Self.isNoOp(factory) else { return }
        Counter(label: label, dimensions: dimensions(), factory: factory).increment(by: amount)
    }

    /// Counts an instance made by a first use: `beehive.resolves` (outcome `created`) and, for a shared one,
    /// `beehive.singletons.created`; the factory is read once.
    func countCreated(shared: Bool) {
        let factory = factory
        guard !Self.isNoOp(factory) else { return }
        Counter(label: "beehive.resolves", dimensions: [("outcome", "created")], factory: factory).increment()
        if shared { Counter(label: "beehive.singletons.created", factory: factory).increment() }
    }

    /// Whether `factory` is swift-metrics' no-op one: the type its existential holds compared, not cast (a cast asks
    /// the runtime), and read from the container, where `type(of:)` asks the runtime too (~90 instructions). The no-op
    /// factory's class is final: the type the container holds is its dynamic type.
    private static func isNoOp(_ factory: any MetricsFactory) -> Bool {
        let noOp = unsafeBitCast(NOOPMetricsHandler.self, to: UnsafeRawPointer.self)
        return withUnsafePointer(to: factory) { bh_any_type($0) } == noOp
    }

    /// Records a duration in the timer `label` with `dimensions`.
    func time(_ label: String, _ dimensions: [(String, String)], nanoseconds: UInt64) {
        Timer(label: label, dimensions: dimensions, factory: factory)
            .recordNanoseconds(Int64(clamping: nanoseconds))
    }

    /// Runs `body` in a span named `name`, current while it runs, with `attributes`; an error ends the span as
    /// failed. With no tracer (the no-op one), neither the name nor the attributes are made.
    func span<Result, Failure: Error>(
        _ name: @autoclosure () -> String, _ attributes: @autoclosure () -> [String: SpanAttribute] = [:],
        _ body: (any Span) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let tracer = targets?.tracer ?? InstrumentationSystem.tracer
        if tracer is NoOpTracer { return try body(Self.noSpan) }
        let span = tracer.startSpan(name(), context: ServiceContext.current ?? .topLevel)
        defer { span.end() }
        set(attributes(), on: span)
        let outcome = ServiceContext.withValue(span.context) { () -> Swift.Result<Result, Failure> in
            do throws(Failure) { return .success(try body(span)) } catch { return .failure(error) }
        }
        if case .failure(let error) = outcome { Self.fail(span, error) }
        return try outcome.get()
    }

    /// ``span(_:_:_:)`` for an async body that does not throw.
    package func span<Result>(
        _ name: @autoclosure () -> String, _ attributes: @autoclosure () -> [String: SpanAttribute] = [:],
        isolation: isolated (any Actor)? = #isolation, _ body: (any Span) async -> Result
    ) async -> Result {
        let tracer = targets?.tracer ?? InstrumentationSystem.tracer
        if tracer is NoOpTracer { return await body(Self.noSpan) }
        let span = tracer.startSpan(name(), context: ServiceContext.current ?? .topLevel)
        defer { span.end() }
        set(attributes(), on: span)
        return await ServiceContext.withValue(span.context) { await body(span) }
    }

    /// The span a body gets when no tracer was bootstrapped or given: nothing is made, named or kept.
    private static let noSpan = NoOpTracer.NoOpSpan(context: .topLevel)

    private func set(_ attributes: [String: SpanAttribute], on span: any Span) {
        guard !attributes.isEmpty else { return }
        span.updateAttributes { current in
            for (key, value) in attributes { current[key] = value }
        }
    }

    /// Marks `span` failed with `error`.
    package static func fail(_ span: any Span, _ error: any Error) {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: "\(error)"))
    }
}
