import Dispatch
import FoundationEssentials
import Testing

@testable import BeeHive
@testable import BeeHiveModules

#if canImport(Glibc)
import Glibc
#endif

/// A manager over a hive of its own, with a log in its context.
func makeManager(profiled: Bool = false) -> (ModuleManager, EventLog, Hive) {
    let hive = Hive()
    let log = EventLog()
    let context = ModuleContext(hive: hive, environment: .test, appKey: "key", customParameters: ["log": log])
    return (ModuleManager(hive: hive, context: context, profiler: TimeProfiler(isEnabled: profiled)), log, hive)
}

@Suite("Modules: order and lifecycle")
struct ModuleLifecycleTests {
    struct OrderCase: Sendable, CustomStringConvertible {
        let name: String
        /// (type, level, priority), in declaration order.
        let modules: [(LoggingModule.Type, ModuleLevel, Int)]
        let expected: [String]
        var description: String { name }
    }

    static let orderCases: [OrderCase] = [
        OrderCase(
            name: "level first, basic before normal before application",
            modules: [(ModuleA.self, .application, 0), (ModuleB.self, .normal, 0), (ModuleC.self, .basic, 0)],
            expected: ["ModuleC", "ModuleB", "ModuleA"]),
        OrderCase(
            name: "higher priority first within a level",
            modules: [(ModuleA.self, .normal, 1), (ModuleB.self, .normal, 100), (ModuleC.self, .normal, -5)],
            expected: ["ModuleB", "ModuleA", "ModuleC"]),
        OrderCase(
            name: "declaration order breaks ties",
            modules: [(ModuleD.self, .normal, 7), (ModuleA.self, .normal, 7), (ModuleC.self, .normal, 7)],
            expected: ["ModuleD", "ModuleA", "ModuleC"]),
        OrderCase(
            name: "tiers and priorities together",
            modules: [
                (ModuleA.self, .feature, 10), (ModuleB.self, .capability, 1), (ModuleC.self, .application, 99),
                (ModuleD.self, .capability, 50), (ModuleE.self, .feature, 20),
            ],
            expected: ["ModuleD", "ModuleB", "ModuleE", "ModuleA", "ModuleC"]),
    ]

    @Test("setUp, init and splash follow level then priority; tearDown runs in reverse", arguments: orderCases)
    func order(_ c: OrderCase) throws {
        let (manager, log, _) = makeManager()
        for (type, level, priority) in c.modules { try manager.register(type, level: level, priority: priority) }
        manager.start()
        manager.waitUntilReady()
        #expect(log.events("setUp") == c.expected)
        #expect(log.events("init") == c.expected)
        #expect(log.events("splash") == c.expected)
        manager.terminate()
        #expect(log.events("tearDown") == c.expected.reversed())
        #expect(log.all.firstIndex(of: "\(c.expected.last!).splash")! > log.all.lastIndex { $0.hasSuffix(".init") }!)
    }

    @Test("modules from annotation-style declarations, files and code are ordered together")
    func mergedSources() throws {
        let (manager, log, hive) = makeManager()
        try hive.declareModule("BeeHiveTests.ModuleA", level: .normal, priority: 5)
        try hive.declareModule("BeeHiveTests.ModuleB", level: .basic)
        try manager.register(ModuleC.self, level: .normal, priority: 50)
        manager.refresh()
        manager.start()
        manager.waitUntilReady()
        #expect(log.events("setUp") == ["ModuleB", "ModuleC", "ModuleA"])
    }

    @Test("async modules run init off the caller's thread; waitUntilReady waits for them, then splash")
    func asyncInit() throws {
        let (manager, log, _) = makeManager()
        try manager.register(ModuleA.self)
        try manager.register(SlowAsyncModule.self, isAsync: true)
        manager.start()
        #expect(!log.all.contains("SlowAsyncModule.init"), "start returned before the async init finished")
        manager.waitUntilReady()
        #expect(log.events("init") == ["ModuleA", "SlowAsyncModule"])
        #expect(log.events("splash") == ["ModuleA", "SlowAsyncModule"])
        #expect(log.all.firstIndex(of: "ModuleA.splash")! > log.all.firstIndex(of: "SlowAsyncModule.init")!)
    }

    @Test("ready() can be awaited")
    func awaitReady() async throws {
        let (manager, log, _) = makeManager()
        try manager.register(SlowAsyncModule.self, isAsync: true)
        manager.start()
        await manager.ready()
        #expect(log.events("splash") == ["SlowAsyncModule"])
    }

    @Test("a module registered after start gets setUp, init and splash at once; unregister delivers tearDown")
    func dynamicRegistration() throws {
        let (manager, log, _) = makeManager()
        try manager.register(ModuleA.self)
        manager.start()
        manager.waitUntilReady()
        try manager.register(ModuleB.self)
        #expect(log.all.suffix(3) == ["ModuleB.setUp", "ModuleB.init", "ModuleB.splash"])
        try manager.register(ModuleC.self, triggersInit: false)
        #expect(!log.all.contains("ModuleC.setUp"))
        try manager.unregister(ModuleB.self)
        #expect(log.all.suffix(2) == ["ModuleB.tearDown", "ModuleB.unmount"])
        #expect(manager.modules.map(\.name) == ["BeeHiveTests.ModuleA", "BeeHiveTests.ModuleC"])
        #expect(throws: HiveError.self) { try manager.unregister(moduleNamed: "BeeHiveTests.Nope") }
    }

    @Test("a module declared twice is one module, created once, with a duplicate diagnostic")
    func duplicate() throws {
        let (manager, _, hive) = makeManager()
        try hive.declareModule("BeeHiveTests.SilentModule", priority: 3)
        manager.refresh()
        let before = SilentModule.created.load(ordering: .relaxed)
        let kept = try manager.register(SilentModule.self, priority: 9)
        #expect(kept.priority == 3)
        manager.start()
        manager.trigger(.setUp)
        #expect(SilentModule.created.load(ordering: .relaxed) == before + 1)
        #expect(hive.diagnostics.contains { $0.code == .duplicateRegistration && $0.message.contains("SilentModule") })
    }

    @Test("unknown module names and types that are not modules are reported; the other modules still run")
    func badModules() throws {
        let (manager, log, hive) = makeManager()
        try hive.declareModule("BeeHiveTests.NoSuchModule")
        try hive.declareModule("BeeHiveTests.PlainType")
        try manager.register(ModuleA.self)
        manager.refresh()
        manager.start()
        manager.waitUntilReady()
        #expect(log.events("init") == ["ModuleA"])
        let codes = hive.diagnostics.map(\.code)
        #expect(codes.contains(.unknownType) && codes.contains(.notAModule))
        #expect(hive.diagnostics.filter { $0.code == .unknownType }.count == 1, "reported once, not per event")
    }

    @Test("a handler that throws is reported, and the modules after it still get the event")
    func throwingHandler() throws {
        let (manager, log, hive) = makeManager()
        try manager.register(FailingModule.self, priority: 10)
        try manager.register(ModuleA.self)
        manager.start()
        manager.waitUntilReady()
        #expect(log.events("init") == ["ModuleA"])
        let failure = try #require(hive.diagnostics.first { $0.code == .moduleEventFailed })
        #expect(failure.message.contains("BeeHiveTests.FailingModule") && failure.message.contains("initialize"))
        #expect(failure.source?.isCode == true)
    }

    @Test("a module is only called for the hooks it implements")
    func onlyImplementedHooks() throws {
        let (manager, _, _) = makeManager(profiled: true)
        try manager.register(SilentModule.self)
        try manager.register(ModuleA.self)
        manager.start()
        manager.waitUntilReady()
        manager.trigger(.setUp)
        #expect(!manager.profiler.records.contains { $0.module == "BeeHiveTests.SilentModule" })
        #expect(manager.profiler.records.filter { $0.module == "BeeHiveTests.ModuleA" }.count == 4)
    }

    @Test("each handler gets its own copy of the context, carrying the event")
    func contextCopies() throws {
        let (manager, log, _) = makeManager()
        try manager.register(ContextMutatingModule.self, priority: 2)
        try manager.register(ContextReadingModule.self, priority: 1)
        manager.trigger(.setUp)
        #expect(log.all.contains("ContextReadingModule.setUp:true:setUp"))
    }
}

@Suite("Modules: custom and system events")
struct ModuleEventTests {
    @Test("a custom event reaches only the modules that handle or subscribed to it, with its parameters")
    func customEvent() throws {
        let (manager, log, _) = makeManager()
        try manager.register(CustomSubscriber.self)
        try manager.register(ModuleA.self)
        try manager.register(ModuleB.self)
        try manager.subscribe(module: "BeeHiveTests.ModuleB", to: .custom(1001)) { context in
            (context.customParameters["log"] as? EventLog)?.append(
                "ModuleB.closure=\(context.eventParameters["value"]!)")
        }
        try manager.subscribe(module: "BeeHiveTests.ModuleA", to: .custom(1002)) { context in
            (context.customParameters["log"] as? EventLog)?.append("ModuleA.closure1002")
        }
        try manager.triggerCustomEvent(1001, parameters: ["value": 7])
        #expect(log.all == ["CustomSubscriber.custom(1001)=7", "ModuleB.closure=7"])
    }

    @Test("two modules subscribing to one custom event each get their own handler (BeeHive kept only the first)")
    func perModuleHandlers() throws {
        let (manager, log, _) = makeManager()
        try manager.register(ModuleA.self)
        try manager.register(ModuleB.self)
        for name in ["ModuleA", "ModuleB"] {
            try manager.subscribe(module: "BeeHiveTests.\(name)", to: .custom(2000)) { context in
                (context.customParameters["log"] as? EventLog)?.append("\(name) handler for \(context.moduleName!)")
            }
        }
        manager.trigger(try .custom(2000))
        #expect(log.all == ["ModuleA handler for BeeHiveTests.ModuleA", "ModuleB handler for BeeHiveTests.ModuleB"])
    }

    @Test("a custom event number below 1000 is refused with a diagnostic", arguments: [0, 9, 999, -1])
    func belowCustomRange(_ value: Int) {
        let (manager, log, hive) = makeManager()
        let error = #expect(throws: HiveError.self) { try manager.triggerCustomEvent(value) }
        #expect(error?.code == .invalidCustomEvent)
        #expect(error?.message.contains("at least 1000") == true)
        #expect(hive.diagnostics.first?.code == .invalidCustomEvent)
        #expect(log.all.isEmpty)
    }

    @Test("a throwing custom handler is reported and the others still run")
    func throwingCustomHandler() throws {
        let (manager, log, hive) = makeManager()
        try manager.register(FailingModule.self, priority: 1)
        try manager.register(CustomSubscriber.self)
        try manager.triggerCustomEvent(1001)
        #expect(log.all == ["CustomSubscriber.custom(1001)"])
        #expect(hive.diagnostics.contains { $0.code == .moduleEventFailed && $0.message.contains("custom(1001)") })
    }

    @Test("subscribing for an unknown module names the known ones")
    func subscribeUnknown() throws {
        let (manager, _, _) = makeManager()
        try manager.register(ModuleA.self)
        let error = #expect(throws: HiveError.self) {
            try manager.subscribe(module: "Nope", to: .reload) { _ in }
        }
        #expect(error?.code == .moduleNotFound && error?.message.contains("BeeHiveTests.ModuleA") == true)
    }

    @Test("system events reach modules that list them")
    func systemEvents() throws {
        let (manager, log, _) = makeManager()
        try manager.register(CustomSubscriber.self)
        try manager.register(ModuleA.self)
        manager.trigger(.reload)
        manager.trigger(.didEnterBackground)
        #expect(log.all == ["CustomSubscriber.reload"])
        #expect(ModuleEvent.didReceiveMemoryWarning.description == "didReceiveMemoryWarning")
        #expect(ModuleEvent.willTerminate.rawValue == 9 && ModuleEvent.openURL.rawValue == 11)
    }

    @Test("memory pressure is watched where the kernel offers it, and never crashes where it does not")
    func memoryPressure() throws {
        let (manager, _, _) = makeManager()
        let handlers = manager.installSystemEventHandlers(signals: false, memoryPressure: true)
        defer { handlers.cancel() }
        if let source = handlers.memoryPressureSource {
            #expect(source.hasSuffix("memory.pressure") || source == "/proc/pressure/memory")
        }
    }
}

@Suite("Modules: launch, profiler, config, watchdog")
struct ModuleToolsTests {
    @Test("a module is launched by name with parameters (FisherMan)")
    func launch() throws {
        let (manager, _, _) = makeManager()
        try manager.register(LaunchableModule.self)
        try manager.register(ModuleA.self)
        let result = try manager.launch(moduleNamed: "BeeHiveTests.LaunchableModule", parameters: ["id": 42])
        #expect(result as? String == "launched 42 in test")
        let noEntry = #expect(throws: HiveError.self) { try manager.launch(moduleNamed: "BeeHiveTests.ModuleA") }
        #expect(noEntry?.code == .noEntryPoint)
        let missing = #expect(throws: HiveError.self) { try manager.launch(moduleNamed: "BeeHiveTests.Nope") }
        #expect(missing?.code == .moduleNotFound)
    }

    @Test("the profiler times every module × event, prints a table and exports JSON")
    func profiler() throws {
        let (manager, _, _) = makeManager(profiled: true)
        try manager.register(ModuleA.self)
        try manager.register(SlowAsyncModule.self, isAsync: true)
        manager.start()
        manager.waitUntilReady()
        let records = manager.profiler.records
        #expect(Set(records.map(\.event)) == ["setUp", "initialize", "splash"])
        let slow = try #require(
            records.first { $0.module == "BeeHiveTests.SlowAsyncModule" && $0.event == "initialize" })
        #expect(slow.durationNanoseconds >= 90_000_000)
        let table = manager.profiler.table()
        #expect(
            table.contains("BeeHiveTests.SlowAsyncModule") && table.contains("duration ms") && table.contains("total"))
        struct Export: Decodable { let records: [TimeProfiler.Record] }
        let decoded = try JSONDecoder().decode(Export.self, from: manager.profiler.json())
        #expect(decoded.records == records)
    }

    @Test("the profiler records nothing when off")
    func profilerOff() throws {
        let (manager, _, _) = makeManager(profiled: false)
        try manager.register(ModuleA.self)
        manager.start()
        manager.waitUntilReady()
        #expect(manager.profiler.records.isEmpty)
    }

    @Test("config: get, has, set, add, clear and typed getters")
    func config() {
        let config = HiveConfig(["a": "1"])
        config.set("n", 42)
        config.add(["flag": "yes", "pi": 3.5, "list": [1, 2] as [any Sendable]])
        #expect(config.has("a") && config.integer("a") == 1 && config.string("n") == "42")
        #expect(config.bool("flag") == true && config.double("pi") == 3.5 && config.array("list")?.count == 2)
        config.set("a", nil)
        #expect(!config.has("a"))
        config.clear()
        #expect(config.all.isEmpty)
    }

    @Test("config from many threads at once")
    func configConcurrency() {
        let config = HiveConfig()
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            for j in 0..<500 {
                config.set("k\(i)-\(j)", j)
                _ = config.integer("k\((i + 1) % 16)-\(j)")
                if j % 100 == 0 { _ = config.all.count }
            }
        }
        #expect(config.all.count == 16 * 500)
    }

    @Test("the watchdog reports a blocked queue, once per blocked period, and not an idle one")
    func watchdog() {
        let queue = DispatchQueue(label: "watched")
        let reports = EventLog()
        let watchdog = Watchdog(queue: queue, threshold: .milliseconds(40)) { blocked in
            reports.append("blocked \(blocked / 1_000_000)")
        }
        watchdog.start()
        usleep(200_000)
        #expect(reports.all.isEmpty, "an idle queue is not blocked")
        queue.async { usleep(400_000) }
        usleep(600_000)
        watchdog.stop()
        #expect(reports.all.count == 1)
    }
}
