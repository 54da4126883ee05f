import BeeHiveTestSupport
import CoreMetrics
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

@testable import BeeHive
@testable import BeeHiveModules

/// What a hive tells swift-metrics and swift-distributed-tracing, through the factory and tracer of its options
/// (the program's bootstrapped ones otherwise): the names and dimensions of `Docs/Telemetry.md`.
@Suite("Telemetry: counters, timers and spans through swift-metrics and swift-distributed-tracing")
struct TelemetryTests {
    /// A hive whose metrics and spans go to in-memory backends.
    static func instrumentedHive(scans: Bool = false) -> (Hive, TestMetrics, InMemoryTracer) {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let options = Hive.Options(scansLoadedImages: scans, metricsFactory: metrics, tracer: tracer)
        return (Hive(options: options), metrics, tracer)
    }

    /// The value of the counter `label` with `dimensions`; 0 when it was never made.
    static func total(_ metrics: TestMetrics, _ label: String, _ dimensions: [(String, String)] = []) -> Int64 {
        (try? metrics.expectCounter(label, dimensions))?.totalValue ?? 0
    }

    @Test("registrations count by kind; a resolve that makes an instance counts once, one answered from the cache not")
    func registrationsAndResolves() throws {
        let (hive, metrics, _) = Self.instrumentedHive()
        try hive.register(service: PriceService.self, impl: StandardPrices.self)
        try hive.register(service: TelemetryClock.self, impl: SharedClock.self)
        #expect(Self.total(metrics, "beehive.registrations", [("kind", "service")]) == 2)

        _ = try hive.createService(PriceService.self)
        _ = try hive.createService(PriceService.self)
        #expect(Self.total(metrics, "beehive.resolves", [("outcome", "created")]) == 2, "a new instance per call")
        #expect(Self.total(metrics, "beehive.singletons.created") == 0)

        for _ in 0..<5 { _ = try hive.createService(TelemetryClock.self) }
        #expect(Self.total(metrics, "beehive.resolves", [("outcome", "created")]) == 3, "the shared one once")
        #expect(Self.total(metrics, "beehive.singletons.created") == 1)
    }

    @Test("a failed resolve counts by its code; a duplicate registration is a diagnostic counted by code and severity")
    func failuresAndDiagnostics() throws {
        let (hive, metrics, _) = Self.instrumentedHive()
        #expect(throws: HiveError.self) { try hive.createService(TelemetryClock.self) }
        #expect(Self.total(metrics, "beehive.resolves", [("outcome", "failed"), ("code", "serviceNotFound")]) == 1)

        try hive.register(service: PriceService.self, impl: StandardPrices.self)
        try hive.register(service: PriceService.self, impl: StandardPrices.self)
        let duplicates = Self.total(
            metrics, "beehive.diagnostics", [("code", "duplicateRegistration"), ("severity", "warning")])
        #expect(duplicates == 1)
    }

    @Test("a refused plugin load is a failed span, counted with its code and timed; so are a load and a retire")
    func pluginOperations() throws {
        try RankingTests.withPluginFolder { folder in
            let (hive, metrics, tracer) = Self.instrumentedHive(scans: true)
            let notALibrary = folder.appendingPathComponent("notes.txt").path
            try "not a library".write(toFile: notALibrary, atomically: true, encoding: .utf8)
            #expect(throws: PluginError.self) { try hive.plugins.load(path: notALibrary) }
            #expect(Self.total(metrics, "beehive.plugins", [("operation", "load"), ("outcome", "ok")]) == 0)
            let refused = metrics.counters.filter { $0.label == "beehive.plugins" }
            #expect(refused.count == 1 && refused[0].totalValue == 1)
            #expect(refused.first?.dimensions.contains { $0 == ("outcome", "notASharedLibrary") } == true, "\(refused)")

            let plugin = try hive.plugins.load(
                path: try RankingTests.rankedPlugin("TelemetryPrices", rank: 1, properties: [], in: folder))
            try hive.plugins.retire(plugin)
            #expect(Self.total(metrics, "beehive.plugins", [("operation", "load"), ("outcome", "ok")]) == 1)
            #expect(Self.total(metrics, "beehive.plugins", [("operation", "retire"), ("outcome", "ok")]) == 1)
            #expect(try metrics.expectTimer("beehive.plugin.duration", [("operation", "load")]).values.count == 2)

            let spans = tracer.finishedSpans
            #expect(
                spans.map(\.operationName) == ["beehive.plugin.load", "beehive.plugin.load", "beehive.plugin.retire"])
            #expect(spans.first?.status?.code == .error, "the refused load")
            #expect(spans.first?.attributes["beehive.plugin.path"]?.toSpanAttribute() == .string(notALibrary))
            #expect(spans.dropFirst().allSatisfy { $0.status == nil })
        }
    }

    @Test("each module's handling of an event is a span with the module; a hook it does not implement is marked so")
    func moduleEventSpans() async throws {
        let (hive, _, tracer) = Self.instrumentedHive()
        let context = ModuleContext(
            hive: hive, environment: .test, appKey: "key", customParameters: ["log": EventLog()])
        let manager = ModuleManager(hive: hive, context: context)
        try await manager.register(ModuleA.self, level: .basic, priority: 3)
        try await manager.register(SilentModule.self)
        await manager.start()

        let setUps = tracer.finishedSpans.filter { $0.operationName == "beehive.module.setUp" }
        let moduleA = setUps.first {
            $0.attributes["beehive.module.name"]?.toSpanAttribute() == .string("BeeHiveTests.ModuleA")
        }
        #expect(moduleA?.attributes["beehive.module.priority"]?.toSpanAttribute() == .int64(3), "\(setUps)")
        #expect(moduleA?.attributes["beehive.module.implemented"] == nil)
        let silent = setUps.first {
            $0.attributes["beehive.module.name"]?.toSpanAttribute() == .string("BeeHiveTests.SilentModule")
        }
        #expect(silent?.attributes["beehive.module.implemented"]?.toSpanAttribute() == .bool(false), "\(setUps)")
    }
}

/// A singleton service of the telemetry tests.
protocol TelemetryClock: Sendable {}

final class SharedClock: TelemetryClock, ServiceImplementation {
    static var isSingleton: Bool { true }
    init() {}
}
