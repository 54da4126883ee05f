import Dispatch
import Foundation
import Testing

@testable import BeeHive
@testable import BeeHiveModules

/// The demo's `HomeModule`: logs its lifecycle and the custom event it registered for.
final class CompatHomeModule: HiveModule, Sendable {
    init() {}
    static var events: Set<ModuleEvent> { [try! .custom(1000)] }
    func modSetUp(_ context: ModuleContext) throws { context.log("home.setUp") }
    func modInit(_ context: ModuleContext) throws { context.log("home.init") }
    func modSplash(_ context: ModuleContext) throws { context.log("home.splash") }
    func modHandleEvent(_ event: ModuleEvent, _ context: ModuleContext) throws {
        context.log("home.\(event.rawValue)=\(context.eventParameters["k"].map { "\($0)" } ?? "-")")
    }
    func modTearDown(_ context: ModuleContext) throws { context.log("home.tearDown") }
}

/// BHModuleManager's, BHContext's, BHConfig's, BHTimeProfiler's and BHWatchDog's examples, written against
/// BeeHiveModules.
@Suite("Compatibility: BHModuleManager, BHContext, BHConfig, BHTimeProfiler, BHWatchDog")
struct BeeHiveModuleCompatibilityTests {
    @Test("registerDynamicModule: then the launch: setUp, init, splash; a custom event >= 1000 with its param")
    func dynamicModuleAndCustomEvent() async throws {
        let log = EventLog()
        let manager = ModuleManager(hive: Hive(), context: ModuleContext(hive: Hive(), customParameters: ["log": log]))
        // [BeeHive registerDynamicModule:[HomeModule class]];
        try await manager.register(CompatHomeModule.self)
        await manager.start()
        // [[BeeHive shareInstance] triggerCustomEvent:1000] with BHContext's customParam.
        try await manager.triggerCustomEvent(1000, parameters: ["k": "v"])
        await manager.terminate()
        #expect(log.all == ["home.setUp", "home.init", "home.splash", "home.1000=v", "home.tearDown"])
    }

    @Test("a custom event below 1000 is refused, as BeeHive's BHMDidCustomEvent starts there")
    func customEventFloor() async throws {
        let manager = ModuleManager(hive: Hive())
        let error = await #expect(throws: HiveError.self) { try await manager.triggerCustomEvent(999) }
        #expect(error?.code == .invalidCustomEvent)
    }

    @Test("iOS-only events are refused rather than never delivered (deliberate)")
    func iOSOnlyEvent() async throws {
        let manager = ModuleManager(hive: Hive())
        let error = await #expect(throws: HiveError.self) { try await manager.trigger(.didEnterBackground) }
        #expect(error?.code == .unsupportedEvent)
    }

    @Test("BHContext: env, appkey, moduleConfigName, serviceConfigName, customParam")
    func context() {
        let context = ModuleContext(
            hive: Hive(), environment: .prod, appKey: "key", moduleConfigName: "BeeHive.plist",
            serviceConfigName: "BHService.plist", customParameters: ["k": 1])
        #expect(context.environment == .prod)
        #expect(context.appKey == "key")
        #expect(context.moduleConfigName == "BeeHive.plist" && context.serviceConfigName == "BHService.plist")
        #expect(context.customParameters["k"] as? Int == 1)
    }

    @Test("BHConfig: set, get, has, add, typed values, clear")
    func config() {
        let config = HiveConfig()
        config.set("host", "example.com")
        config.add(["port": 8080, "debug": true])
        #expect(config.string("host") == "example.com")
        #expect(config.integer("port") == 8080)
        #expect(config.bool("debug") == true)
        #expect(config.has("port"))
        config.clear()
        #expect(!config.has("host"))
    }

    @Test("BHTimeProfiler recordEventTime: marks with app-chosen names, with the interval since the previous one")
    func timeProfilerMarks() throws {
        let profiler = TimeProfiler(isEnabled: true)
        profiler.recordEventTime("config loaded")
        usleep(2_000)
        profiler.recordEventTime("first screen")
        let marks = profiler.marks
        #expect(marks.map(\.event) == ["config loaded", "first screen"])
        #expect(marks.allSatisfy { $0.module == TimeProfiler.appMarkModule })
        #expect(marks[1].startNanoseconds >= marks[0].startNanoseconds + 2_000_000)
        #expect(marks[1].durationNanoseconds == marks[1].startNanoseconds - marks[0].startNanoseconds)
        #expect(profiler.table().contains("first screen"))
        // Off: nothing recorded.
        let off = TimeProfiler(isEnabled: false)
        off.recordEventTime("ignored")
        #expect(off.records.isEmpty)
    }

    @Test("BHWatchDog initWithThreshold:strictMode: reports a queue blocked longer than the threshold")
    func watchdog() {
        let queue = DispatchQueue(label: "compat.watchdog")
        let reports = EventLog()
        let watchdog = Watchdog(queue: queue, threshold: .milliseconds(40)) { _ in reports.append("blocked") }
        watchdog.start()
        queue.async { usleep(300_000) }
        usleep(500_000)
        watchdog.stop()
        #expect(!reports.all.isEmpty)
    }
}
