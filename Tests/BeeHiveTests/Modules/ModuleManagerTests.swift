import Dispatch
import FoundationEssentials
import Synchronization
import Testing

@testable import BeeHive
@testable import BeeHiveModules

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
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
    func order(_ c: OrderCase) async throws {
        let (manager, log, _) = makeManager()
        for (type, level, priority) in c.modules { try await manager.register(type, level: level, priority: priority) }
        await manager.start()
        #expect(log.events("setUp") == c.expected)
        #expect(log.events("init") == c.expected)
        #expect(log.events("splash") == c.expected)
        await manager.terminate()
        #expect(log.events("tearDown") == c.expected.reversed())
        #expect(log.all.firstIndex(of: "\(c.expected.last!).splash")! > log.all.lastIndex { $0.hasSuffix(".init") }!)
    }

    @Test("modules from annotation-style declarations, files and code are ordered together")
    func mergedSources() async throws {
        let (manager, log, hive) = makeManager()
        try hive.declareModule("BeeHiveTests.ModuleA", level: .normal, priority: 5)
        try hive.declareModule("BeeHiveTests.ModuleB", level: .basic)
        try await manager.register(ModuleC.self, level: .normal, priority: 50)
        manager.refresh()
        await manager.start()
        #expect(log.events("setUp") == ["ModuleB", "ModuleC", "ModuleA"])
    }

    @Test("async modules run init as child tasks; start returns after splash, which waits for every init")
    func asyncInit() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(ModuleA.self)
        try await manager.register(SlowAsyncModule.self, isAsync: true)
        await manager.start()
        #expect(log.events("init") == ["ModuleA", "SlowAsyncModule"])
        #expect(log.events("splash") == ["ModuleA", "SlowAsyncModule"])
        #expect(log.all.firstIndex(of: "ModuleA.splash")! > log.all.firstIndex(of: "SlowAsyncModule.init")!)
    }

    @Test("ready() returns once start has finished, and at once after that; waitUntilReady() blocks a thread for it")
    func awaitReady() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(SlowAsyncModule.self, isAsync: true)
        await withDiscardingTaskGroup { group in
            group.addTask { await manager.start() }
            group.addTask {
                await manager.ready()
                #expect(log.events("splash") == ["SlowAsyncModule"], "ready() returned before splash")
            }
        }
        await manager.ready()
        let blocked = EventLog()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                manager.waitUntilReady()
                blocked.append("ready")
                continuation.resume()
            }
        }
        #expect(blocked.all == ["ready"])
        await manager.start()
        #expect(log.events("setUp") == ["SlowAsyncModule"], "start runs once")
    }

    @Test("a module registered after start gets setUp, init and splash at once; unregister delivers tearDown")
    func dynamicRegistration() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(ModuleA.self)
        await manager.start()
        try await manager.register(ModuleB.self)
        #expect(log.all.suffix(3) == ["ModuleB.setUp", "ModuleB.init", "ModuleB.splash"])
        try await manager.register(ModuleC.self, triggersInit: false)
        #expect(!log.all.contains("ModuleC.setUp"))
        try await manager.unregister(ModuleB.self)
        #expect(log.all.suffix(2) == ["ModuleB.tearDown", "ModuleB.unmount"])
        #expect(manager.modules.map(\.name) == ["BeeHiveTests.ModuleA", "BeeHiveTests.ModuleC"])
        await #expect(throws: HiveError.self) { try await manager.unregister(moduleNamed: "BeeHiveTests.Nope") }
    }

    @Test("a module declared twice is one module, created once, with a duplicate diagnostic")
    func duplicate() async throws {
        let (manager, _, hive) = makeManager()
        try hive.declareModule("BeeHiveTests.TwiceDeclaredModule", priority: 3)
        manager.refresh()
        let before = TwiceDeclaredModule.created.load(ordering: .relaxed)
        let kept = try await manager.register(TwiceDeclaredModule.self, priority: 9)
        #expect(kept.priority == 3)
        await manager.start()
        try await manager.trigger(.setUp)
        #expect(TwiceDeclaredModule.created.load(ordering: .relaxed) == before + 1)
        #expect(
            hive.diagnostics.contains {
                $0.code == .duplicateRegistration && $0.message.contains("TwiceDeclaredModule")
            })
    }

    @Test("unknown module names and types that are not modules are reported; the other modules still run")
    func badModules() async throws {
        let (manager, log, hive) = makeManager()
        // A name not found is looked up again once the loader has loaded another image (other suites load plugins
        // while this one runs), and each look-up reports it once.
        let loadedBefore = TypeLookup.loadedImageCount
        try hive.declareModule("BeeHiveTests.NoSuchModule")
        try hive.declareModule("BeeHiveTests.PlainType")
        try await manager.register(ModuleA.self)
        manager.refresh()
        await manager.start()
        let lookups = 1 + Int(TypeLookup.loadedImageCount - loadedBefore)
        #expect(log.events("init") == ["ModuleA"])
        let codes = hive.diagnostics.map(\.code)
        #expect(codes.contains(.unknownType) && codes.contains(.notAModule))
        let unknown = hive.diagnostics.filter { $0.code == .unknownType }.count
        #expect(unknown >= 1 && unknown <= lookups, "reported once per look-up, not per event")
    }

    @Test("a handler that throws is reported, and the modules after it still get the event")
    func throwingHandler() async throws {
        let (manager, log, hive) = makeManager()
        try await manager.register(FailingModule.self, priority: 10)
        try await manager.register(ModuleA.self)
        await manager.start()
        #expect(log.events("init") == ["ModuleA"])
        let failure = try #require(hive.diagnostics.first { $0.code == .moduleEventFailed })
        #expect(failure.message.contains("BeeHiveTests.FailingModule") && failure.message.contains("initialize"))
        #expect(failure.source?.isCode == true)
    }

    @Test("a module is only called for the hooks it implements")
    func onlyImplementedHooks() async throws {
        let (manager, _, _) = makeManager(profiled: true)
        try await manager.register(SilentModule.self)
        try await manager.register(ModuleA.self)
        await manager.start()
        try await manager.trigger(.setUp)
        #expect(!manager.profiler.records.contains { $0.module == "BeeHiveTests.SilentModule" })
        #expect(manager.profiler.records.filter { $0.module == "BeeHiveTests.ModuleA" }.count == 4)
    }

    @Test("each handler gets its own copy of the context, carrying the event")
    func contextCopies() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(ContextMutatingModule.self, priority: 2)
        try await manager.register(ContextReadingModule.self, priority: 1)
        try await manager.trigger(.setUp)
        #expect(log.all.contains("ContextReadingModule.setUp:true:setUp"))
    }
}

@Suite("Modules: custom and system events")
struct ModuleEventTests {
    @Test("a custom event reaches only the modules that handle or subscribed to it, with its parameters")
    func customEvent() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(CustomSubscriber.self)
        try await manager.register(ModuleA.self)
        try await manager.register(ModuleB.self)
        try manager.subscribe(module: "BeeHiveTests.ModuleB", to: .custom(1001)) { context in
            (context.customParameters["log"] as? EventLog)?.append(
                "ModuleB.closure=\(context.eventParameters["value"]!)")
        }
        try manager.subscribe(module: "BeeHiveTests.ModuleA", to: .custom(1002)) { context in
            (context.customParameters["log"] as? EventLog)?.append("ModuleA.closure1002")
        }
        try await manager.triggerCustomEvent(1001, parameters: ["value": 7])
        #expect(log.all == ["CustomSubscriber.custom(1001)=7", "ModuleB.closure=7"])
    }

    @Test("two modules subscribing to one custom event each get their own handler (BeeHive kept only the first)")
    func perModuleHandlers() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(ModuleA.self)
        try await manager.register(ModuleB.self)
        for name in ["ModuleA", "ModuleB"] {
            try manager.subscribe(module: "BeeHiveTests.\(name)", to: .custom(2000)) { context in
                (context.customParameters["log"] as? EventLog)?.append("\(name) handler for \(context.moduleName!)")
            }
        }
        try await manager.trigger(try .custom(2000))
        #expect(log.all == ["ModuleA handler for BeeHiveTests.ModuleA", "ModuleB handler for BeeHiveTests.ModuleB"])
    }

    @Test("a custom event number below 1000 is refused with a diagnostic", arguments: [0, 9, 999, -1])
    func belowCustomRange(_ value: Int) async {
        let (manager, log, hive) = makeManager()
        let error = await #expect(throws: HiveError.self) { try await manager.triggerCustomEvent(value) }
        #expect(error?.code == .invalidCustomEvent)
        #expect(error?.message.contains("at least 1000") == true)
        #expect(hive.diagnostics.first?.code == .invalidCustomEvent)
        #expect(log.all.isEmpty)
    }

    @Test("a throwing custom handler is reported and the others still run")
    func throwingCustomHandler() async throws {
        let (manager, log, hive) = makeManager()
        try await manager.register(FailingModule.self, priority: 1)
        try await manager.register(CustomSubscriber.self)
        try await manager.triggerCustomEvent(1001)
        #expect(log.all == ["CustomSubscriber.custom(1001)"])
        #expect(hive.diagnostics.contains { $0.code == .moduleEventFailed && $0.message.contains("custom(1001)") })
    }

    @Test("subscribing for an unknown module names the known ones")
    func subscribeUnknown() async throws {
        let (manager, _, _) = makeManager()
        try await manager.register(ModuleA.self)
        let error = #expect(throws: HiveError.self) {
            try manager.subscribe(module: "Nope", to: .reload) { _ in }
        }
        #expect(error?.code == .moduleNotFound && error?.message.contains("BeeHiveTests.ModuleA") == true)
    }

    @Test("system events reach modules that list them")
    func systemEvents() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(CustomSubscriber.self)
        try await manager.register(ModuleA.self)
        try await manager.trigger(.reload)
        await #expect(throws: HiveError.self) { try await manager.trigger(.didEnterBackground) }
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

@Suite("Modules: async hooks, named hooks and events with no Linux meaning")
struct ModuleAsyncTests {
    /// The log entries of `event`, with their begin/end markers.
    static func hooks(_ log: EventLog, _ event: String) -> [String] {
        log.all.filter { $0.contains(".\(event)-") }
    }

    /// What each module logs, begin then end, one module after the other.
    static func sequential(_ modules: [String], _ event: String) -> [String] {
        modules.flatMap { ["\($0).\(event)-begin", "\($0).\(event)-end"] }
    }

    @Test("async hooks are awaited one module after the other, in level and priority order")
    func asyncHooksInOrder() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(PausingThird.self, level: .application)
        try await manager.register(PausingFirst.self, level: .basic)
        try await manager.register(PausingSecond.self, level: .normal)
        await manager.start()
        let order = ["PausingFirst", "PausingSecond", "PausingThird"]
        for event in ["setUp", "init", "splash"] {
            #expect(Self.hooks(log, event) == Self.sequential(order, event), "\(event)")
        }
        #expect(Self.hooks(log, "splash").first == "PausingFirst.splash-begin")
        #expect(log.all.last == "PausingThird.splash-end", "start returned before the last splash finished")
    }

    @Test("tearDown awaits each module in reverse order, after willTerminate in order")
    func tearDownReverse() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(PausingFirst.self, priority: 3)
        try await manager.register(PausingSecond.self, priority: 2)
        try await manager.register(PausingThird.self, priority: 1)
        await manager.start()
        await manager.terminate()
        let order = ["PausingFirst", "PausingSecond", "PausingThird"]
        #expect(Self.hooks(log, "willTerminate") == Self.sequential(order, "willTerminate"))
        #expect(Self.hooks(log, "tearDown") == Self.sequential(order.reversed(), "tearDown"))
        #expect(
            log.all.firstIndex(of: "PausingFirst.tearDown-begin")! > log.all.lastIndex { $0.contains("willTerminate") }!
        )
        await manager.terminate()
        #expect(Self.hooks(log, "tearDown").count == 6, "terminate delivers once")
    }

    @Test("terminate before start: tearDown once, start does nothing after it, ready() returns")
    func terminateBeforeStart() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(PausingFirst.self)
        async let waiting: Void = manager.ready()
        await withDiscardingTaskGroup { group in
            group.addTask { await manager.terminate() }
            group.addTask { await manager.terminate() }
        }
        await waiting
        await manager.start()
        // Not created before, the module gets no willTerminate (it does not list it); tearDown, once.
        #expect(log.all == Self.sequential(["PausingFirst"], "tearDown"))
    }

    @Test("async modules' inits overlap, beside the others' in order; splash waits for all of them")
    func asyncInitsOverlap() async throws {
        let (manager, log, hive) = makeManager()
        manager.context.customParameters["rendezvous"] = Rendezvous(expected: 2)
        try await manager.register(MeetingA.self, isAsync: true)
        try await manager.register(ModuleA.self)
        try await manager.register(MeetingB.self, isAsync: true)
        try await manager.register(ModuleB.self)
        await manager.start()
        #expect(log.all.contains("MeetingA.init-overlapped=true"), "\(log.all)")
        #expect(log.all.contains("MeetingB.init-overlapped=true"), "\(log.all)")
        #expect(log.events("init").filter { $0.hasPrefix("Module") } == ["ModuleA", "ModuleB"])
        let lastInit = try #require(log.all.lastIndex { $0.hasSuffix(".init") })
        let firstSplash = try #require(log.all.firstIndex { $0.hasSuffix(".splash") })
        #expect(firstSplash > lastInit, "splash began before every init had finished: \(log.all)")
        #expect(log.events("splash") == ["MeetingA", "ModuleA", "MeetingB", "ModuleB"])
        #expect(hive.diagnostics.isEmpty)
    }

    @Test("a reload that arrives while start runs is delivered after start, never during init")
    func reloadDuringStart() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(LongInitModule.self, isAsync: true)
        try await manager.register(CustomSubscriber.self)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await manager.start() }
            while !log.all.contains("LongInitModule.init-begin") { try await Task.sleep(for: .milliseconds(2)) }
            group.addTask { try await manager.trigger(.reload) }
            group.addTask { try await manager.triggerCustomEvent(1001) }
        }
        let entries = log.all
        let initEnd = try #require(entries.firstIndex(of: "LongInitModule.init-end"))
        let splash = try #require(entries.lastIndex { $0.hasSuffix(".splash") })
        let reload = try #require(entries.firstIndex(of: "LongInitModule.reload"), "the reload was lost: \(entries)")
        #expect(reload > initEnd && reload > splash, "\(entries)")
        #expect(entries.firstIndex(of: "CustomSubscriber.reload")! > splash)
        #expect(entries.firstIndex(of: "CustomSubscriber.custom(1001)")! > splash)
    }

    @Test("a module written as on iOS, with a synchronous modWillTerminate(_:), is called on terminate")
    func iosStyleWillTerminate() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(IOSStyleModule.self)
        await manager.start()
        await manager.terminate()
        #expect(log.all == ["IOSStyleModule.modWillTerminate"])
    }

    @Test("named hooks for willTerminate, memory warnings and reload; modHandleEvent when a module lists the event")
    func namedHooksAndFallback() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(IOSStyleModule.self, priority: 3)
        try await manager.register(HandleEventModule.self, priority: 2)
        try await manager.register(NamedAndListedModule.self, priority: 1)
        try await manager.register(ModuleA.self)
        await manager.start()
        try await manager.trigger(.reload)
        try await manager.trigger(.didReceiveMemoryWarning)
        try await manager.trigger(.reload)
        await manager.terminate()
        let lifecycle = ["setUp", "init", "splash", "tearDown"]
        #expect(
            log.all.filter { entry in !lifecycle.contains { entry.hasSuffix(".\($0)") } } == [
                "IOSStyleModule.modReload", "HandleEventModule.reload", "NamedAndListedModule.modReload",
                "IOSStyleModule.modDidReceiveMemoryWarning", "HandleEventModule.didReceiveMemoryWarning",
                "IOSStyleModule.modReload", "HandleEventModule.reload", "NamedAndListedModule.modReload",
                "IOSStyleModule.modWillTerminate", "HandleEventModule.willTerminate",
            ])
    }

    @Test("before start, a named hook's event reaches only the modules that list it: the others are not created")
    func namedHooksBeforeStart() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(IOSStyleModule.self)
        try await manager.register(HandleEventModule.self)
        try await manager.trigger(.reload)
        #expect(log.all == ["HandleEventModule.reload"])
        await manager.start()
        try await manager.trigger(.reload)
        #expect(log.all.suffix(2) == ["IOSStyleModule.modReload", "HandleEventModule.reload"])
    }

    static let withoutLinuxMeaning: [ModuleEvent] = [
        .quickAction, .willResignActive, .didEnterBackground, .willEnterForeground, .didBecomeActive, .openURL,
        .didFailToRegisterForRemoteNotifications, .didRegisterForRemoteNotifications, .didReceiveRemoteNotification,
        .didReceiveLocalNotification, .willPresentNotification, .didReceiveNotificationResponse,
        .willContinueUserActivity, .continueUserActivity, .didFailToContinueUserActivity, .didUpdateUserActivity,
        .handleWatchKitExtensionRequest,
    ]

    @Test("triggering an iOS event with no Linux meaning throws unsupportedEvent; nothing is delivered")
    func rejectedEvent() async throws {
        let (manager, log, hive) = makeManager()
        try await manager.register(BackgroundListingModule.self)
        try await manager.register(ModuleA.self)
        let error = await #expect(throws: HiveError.self) { try await manager.trigger(.didEnterBackground) }
        #expect(error?.code == .unsupportedEvent)
        #expect(
            error?.message.hasPrefix(
                "expected an event with a meaning on Linux; found didEnterBackground, an iOS application event with "
                    + "no Linux counterpart") == true, "\(error.map(String.init(describing:)) ?? "")")
        #expect(hive.diagnostics.contains { $0.code == .unsupportedEvent && $0.severity == .error })
        #expect(log.all.isEmpty)
        for event in Self.withoutLinuxMeaning {
            #expect(!event.hasLinuxMeaning)
            let error = await #expect(throws: HiveError.self, "\(event)") { try await manager.trigger(event) }
            #expect(error?.code == .unsupportedEvent && error?.message.contains("found \(event), ") == true)
        }
        #expect(log.all.isEmpty)
        let subscription = #expect(throws: HiveError.self) {
            try manager.subscribe(module: "BeeHiveTests.ModuleA", to: .didBecomeActive) { _ in }
        }
        #expect(subscription?.code == .unsupportedEvent)
        for event in [ModuleEvent.setUp, .willTerminate, .didReceiveMemoryWarning, .reload, try .custom(1000)] {
            #expect(event.hasLinuxMeaning, "\(event)")
        }
    }

    @Test("a module that lists iOS events gets one warning naming it and the events; the rest of its events work")
    func warningForListedIOSEvents() async throws {
        let (manager, log, hive) = makeManager()
        try await manager.register(BackgroundListingModule.self)
        await manager.start()
        try await manager.trigger(.reload)
        try await manager.trigger(.reload)
        let warnings = hive.diagnostics.filter { $0.code == .unsupportedEvent }
        #expect(warnings.count == 1, "\(warnings)")
        let warning = try #require(warnings.first)
        #expect(warning.severity == .warning)
        #expect(warning.message.contains("BeeHiveTests.BackgroundListingModule"))
        #expect(warning.message.contains("didEnterBackground") && warning.message.contains("openURL"))
        #expect(!warning.message.contains("reload"))
        #expect(log.events("reload") == ["BackgroundListingModule", "BackgroundListingModule"])
    }

    @Test("a subscription handler may be async and is awaited in its module's turn")
    func asyncSubscription() async throws {
        let (manager, log, _) = makeManager()
        try await manager.register(ModuleA.self, priority: 1)
        try await manager.register(CustomSubscriber.self)
        try manager.subscribe(module: "BeeHiveTests.ModuleA", to: .custom(1001)) { context in
            try await Task.sleep(for: .milliseconds(30))
            context.log("ModuleA.async-handler")
        }
        try await manager.triggerCustomEvent(1001)
        #expect(log.all == ["ModuleA.async-handler", "CustomSubscriber.custom(1001)"])
    }
}

@Suite("Modules: launch, profiler, config, watchdog")
struct ModuleToolsTests {
    @Test("a module is launched by name with parameters (FisherMan)")
    func launch() async throws {
        let (manager, _, _) = makeManager()
        try await manager.register(LaunchableModule.self)
        try await manager.register(ModuleA.self)
        let result = try await manager.launch(moduleNamed: "BeeHiveTests.LaunchableModule", parameters: ["id": 42])
        #expect(result as? String == "launched 42 in test")
        let noEntry = await #expect(throws: HiveError.self) {
            try await manager.launch(moduleNamed: "BeeHiveTests.ModuleA")
        }
        #expect(noEntry?.code == .noEntryPoint)
        let missing = await #expect(throws: HiveError.self) {
            try await manager.launch(moduleNamed: "BeeHiveTests.Nope")
        }
        #expect(missing?.code == .moduleNotFound)
    }

    @Test("the profiler times every module × event, prints a table and exports JSON")
    func profiler() async throws {
        let (manager, _, _) = makeManager(profiled: true)
        try await manager.register(ModuleA.self)
        try await manager.register(SlowAsyncModule.self, isAsync: true)
        await manager.start()
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
    func profilerOff() async throws {
        let (manager, _, _) = makeManager(profiled: false)
        try await manager.register(ModuleA.self)
        await manager.start()
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

    @Test("the watchdog reports a blocked queue, once per blocked period, and not an idle one (a clock of the test's)")
    func watchdog() {
        let queue = DispatchQueue(label: "watched")
        let clock = Atomic<UInt64>(1_000_000_000)
        func advance(milliseconds: UInt64) { clock.add(milliseconds * 1_000_000, ordering: .relaxed) }
        let reports = EventLog()
        let watchdog = Watchdog(
            queue: queue, threshold: .milliseconds(40), now: { clock.load(ordering: .relaxed) }
        ) { blocked in
            reports.append("blocked \(blocked / 1_000_000) ms")
        }
        // Idle: each look posts a ping, and the queue runs it before the next look (`queue.sync {}` waits for it).
        for _ in 0..<5 {
            watchdog.check()
            queue.sync {}
            advance(milliseconds: 100)
        }
        #expect(reports.all.isEmpty, "an idle queue is not blocked")

        // Blocked: the queue runs a job that waits for the test; the ping posted behind it cannot run.
        let unblock = DispatchSemaphore(value: 0)
        queue.async { unblock.wait() }
        watchdog.check()  // posts a ping behind the blocking job
        advance(milliseconds: 39)
        watchdog.check()
        #expect(reports.all.isEmpty, "39 ms is under the threshold")
        advance(milliseconds: 1)
        watchdog.check()
        #expect(reports.all == ["blocked 40 ms"])
        for _ in 0..<3 {
            advance(milliseconds: 100)
            watchdog.check()
        }
        #expect(reports.all == ["blocked 40 ms"], "one report per blocked period")

        // Unblocked, then blocked again: a second period, a second report.
        unblock.signal()
        queue.sync {}  // the blocking job and the waiting ping have run
        watchdog.check()
        queue.sync {}
        advance(milliseconds: 100)
        queue.async { unblock.wait() }
        watchdog.check()
        advance(milliseconds: 250)
        watchdog.check()
        #expect(reports.all == ["blocked 40 ms", "blocked 250 ms"])
        unblock.signal()
        queue.sync {}
    }
}
