import BeeHiveTestSupport
import Foundation
import Testing

@testable import BeeHive
@testable import BeeHiveModules

/// One complete event of a Chrome Trace, as parsed from the JSON.
struct TraceSpan: CustomStringConvertible {
    let name: String
    let category: String
    /// Start and duration in microseconds, as written.
    let start: Double
    let duration: Double
    let thread: Int
    let arguments: [String: Any]

    var end: Double { start + duration }
    var description: String { "\(name) [tid \(thread), \(start) + \(duration) µs]" }

    /// Whether `self` lies wholly within `other`, on the same thread (to half a nanosecond: the JSON has three
    /// decimals of microseconds).
    func isWithin(_ other: TraceSpan) -> Bool {
        thread == other.thread && start >= other.start - 0.0005 && end <= other.end + 0.0005
    }
}

/// A Chrome Trace parsed with JSONSerialization: its complete events, metadata events and `otherData`.
struct ParsedTrace {
    let spans: [TraceSpan]
    let metadata: [[String: Any]]
    let otherData: [String: Any]

    init(_ json: Data) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]], "an object with traceEvents")
        var spans: [TraceSpan] = []
        var metadata: [[String: Any]] = []
        for event in events {
            switch event["ph"] as? String {
            case "X":
                spans.append(
                    TraceSpan(
                        name: try #require(event["name"] as? String), category: try #require(event["cat"] as? String),
                        start: try #require((event["ts"] as? NSNumber)?.doubleValue),
                        duration: try #require((event["dur"] as? NSNumber)?.doubleValue),
                        thread: try #require((event["tid"] as? NSNumber)?.intValue),
                        arguments: event["args"] as? [String: Any] ?? [:]))
                #expect((event["pid"] as? NSNumber)?.intValue != nil)
            case "M": metadata.append(event)
            default: Issue.record("unexpected event \(event)")
            }
        }
        self.spans = spans
        self.metadata = metadata
        otherData = object["otherData"] as? [String: Any] ?? [:]
    }

    func spans(named name: String) -> [TraceSpan] { spans.filter { $0.name == name } }

    /// The pairs of spans of one thread that overlap without one lying within the other (Perfetto rejects them).
    var partialOverlaps: [(TraceSpan, TraceSpan)] {
        var overlaps: [(TraceSpan, TraceSpan)] = []
        for (_, spans) in Dictionary(grouping: spans, by: \.thread) {
            // By start, the longer first: every span's parents are on the stack when it is reached.
            let sorted = spans.sorted { ($0.start, -$0.duration) < ($1.start, -$1.duration) }
            var open: [TraceSpan] = []
            for span in sorted {
                while let last = open.last, last.end <= span.start + 0.0005 { open.removeLast() }
                if let parent = open.last, !span.isWithin(parent) { overlaps.append((parent, span)) }
                open.append(span)
            }
        }
        return overlaps
    }
}

@Suite("Timeline: Chrome Trace of what a hive does")
struct TimelineTests {
    @Test("registration, first use, plugins loaded, upgraded, retired, modules: named spans, nested (builds plugins)")
    func startupTimeline() async throws {
        // Only services: the test binary's other sections hold modules and records made to fail, which would log.
        let options = Hive.Options(scansLoadedImages: true, recordSections: ["beehive_services"], recordsTimeline: true)
        nonisolated(unsafe) var made: Hive?
        try RankingTests.withPluginFolder { folder in
            let hive = Hive(options: options)
            made = hive
            try hive.register(PriceService.self, scope: .singleton) { _ in StandardPrices() }
            _ = try hive.createService(PriceService.self)
            try hive.register(service: "BeeHiveTests.PriceService", impl: "BeeHiveTests.StandardPrices", name: "named")
            _ = try hive.createService(PriceService.self, name: "named")
            let european = try RankingTests.rankedPlugin("EuropeanPrices", rank: 10, properties: [], in: folder)
            let american = try RankingTests.rankedPlugin("AmericanPrices", rank: 10, properties: [], in: folder)
            let plugin = try hive.plugins.load(path: european)
            #expect(try hive.createService(PriceService.self).label == "eu")
            let upgraded = try hive.plugins.upgrade(plugin, to: american)
            #expect(try hive.createService(PriceService.self).label == "us")
            try upgraded.retire()
        }
        let hive = try #require(made)
        let log = EventLog()
        let context = ModuleContext(hive: hive, environment: .test, appKey: "key", customParameters: ["log": log])
        let manager = ModuleManager(hive: hive, context: context, profiler: TimeProfiler(isEnabled: true))
        try await manager.register(ModuleA.self, level: .application, priority: 7)
        try await manager.register(SlowAsyncModule.self, isAsync: true)
        await manager.start()

        let trace = try ParsedTrace(Data(hive.timeline.chromeTraceJSON().utf8))
        #expect(trace.partialOverlaps.isEmpty, "\(trace.partialOverlaps)")
        #expect(trace.spans.allSatisfy { $0.duration >= 0 && $0.start > 0 })
        #expect((trace.otherData["droppedEvents"] as? NSNumber)?.intValue == 0)
        #expect(trace.metadata.contains { $0["name"] as? String == "process_name" })

        // The hive's first scan: each image with records parsed inside the ingest of the batch.
        let ingest = try #require(trace.spans(named: "ingest").first)
        let images = trace.spans(named: "ingest.image").filter { $0.isWithin(ingest) }
        #expect(images.contains { ($0.arguments["image"] as? String)?.hasSuffix("BeeHivePackageTests.xctest") == true })
        let registered = trace.spans(named: "register").compactMap { $0.arguments["service"] as? String }
        #expect(registered.contains("BeeHiveTests.PriceService"))

        // First uses: the singleton's creation, and a name bound to a type.
        let created = try #require(trace.spans(named: "service.create").first)
        #expect(created.category == "binding")
        #expect(created.arguments["service"] as? String == "BeeHiveTests.PriceService")
        let bound = trace.spans(named: "service.bind")
        #expect(
            bound.contains {
                $0.arguments["service"] as? String == "BeeHiveTests.PriceService[named]"
                    && $0.arguments["implementation"] as? String == "BeeHiveTests.StandardPrices"
                    && $0.arguments["from"] != nil
            })
        #expect(bound.contains { $0.arguments["implementation"] as? String == "BeeHiveTests.EuropeanPrices" })

        // The plugin: its scan and ingest inside its load, its registrations counted; then its retire.
        let load = try #require(trace.spans(named: "plugin.load").first)
        #expect((load.arguments["path"] as? String)?.hasSuffix("libEuropeanPrices.so") == true)
        #expect((load.arguments["services"] as? NSNumber)?.intValue == 1)
        #expect(trace.spans(named: "scan").contains { $0.isWithin(load) })
        #expect(trace.spans(named: "ingest").contains { $0.isWithin(load) })
        let upgrade = try #require(trace.spans(named: "plugin.upgrade").first)
        #expect((upgrade.arguments["path"] as? String)?.hasSuffix("libAmericanPrices.so") == true)
        #expect((upgrade.arguments["replacing"] as? String)?.hasSuffix("libEuropeanPrices.so") == true)
        #expect(trace.spans(named: "ingest").contains { $0.isWithin(upgrade) })
        #expect(trace.spans(named: "plugin.retire").count == 1)

        // The modules: setUp, init and splash inside the start, with level and priority; the async init on a track
        // of its own task, within the start's time.
        let start = try #require(trace.spans(named: "modules.start").first)
        for event in ["setUp", "initialize", "splash"] {
            let span = try #require(trace.spans(named: "\(event) BeeHiveTests.ModuleA").first, "\(event)")
            #expect(span.isWithin(start))
            #expect(span.category == "module")
            #expect((span.arguments["level"] as? NSNumber)?.intValue == ModuleLevel.application.rawValue)
            #expect((span.arguments["priority"] as? NSNumber)?.intValue == 7)
            #expect(span.arguments["event"] as? String == event)
        }
        let asyncInit = try #require(trace.spans(named: "initialize BeeHiveTests.SlowAsyncModule").first)
        #expect(asyncInit.thread != start.thread && asyncInit.start >= start.start && asyncInit.end <= start.end)
        #expect((asyncInit.arguments["async"] as? NSNumber)?.intValue == 1)

        // The profiler reads the same events: every one of its spans is one of the hive's.
        let profiled = Set(manager.profiler.timeline.events)
        #expect(!profiled.isEmpty)
        #expect(profiled.isSubset(of: Set(hive.timeline.events)))
        #expect(manager.profiler.records.count == profiled.count)
    }

    @Test("the profiler's marks are spans of its timeline, each the interval since the previous, on a track of marks")
    func profilerMarks() throws {
        let profiler = TimeProfiler(isEnabled: true)
        profiler.recordEventTime("config loaded")
        profiler.recordEventTime("first screen")
        let events = profiler.timeline.events
        #expect(events.map(\.name) == ["config loaded", "first screen"])
        #expect(events[1].startNanoseconds == events[0].endNanoseconds)
        #expect(profiler.marks.map(\.durationNanoseconds) == events.map(\.durationNanoseconds))
        let trace = try ParsedTrace(Data(profiler.timeline.chromeTraceJSON().utf8))
        #expect(trace.partialOverlaps.isEmpty)
        #expect(Set(trace.spans.map(\.category)) == ["mark"])
        #expect(
            trace.metadata.contains {
                $0["name"] as? String == "thread_name" && ($0["args"] as? [String: Any])?["name"] as? String == "marks"
            })
    }

    @Test("a stopped timeline records nothing, and one started later records from then on")
    func stopped() throws {
        let hive = Hive()
        try hive.register(PriceService.self, scope: .singleton) { _ in StandardPrices() }
        _ = try hive.createService(PriceService.self)
        #expect(hive.timeline.events.isEmpty)
        hive.timeline.start()
        try hive.register(service: "BeeHiveTests.PriceService", impl: "BeeHiveTests.StandardPrices", name: "later")
        hive.timeline.stop()
        _ = try hive.createService(PriceService.self, name: "later")
        #expect(hive.timeline.events.map(\.name) == ["register"])
    }

    @Test("the event limit: later events are dropped, counted, and the output says so")
    func limit() throws {
        let timeline = HiveTimeline(eventLimit: 3)
        timeline.start()
        for index in 0..<5 { timeline.span("step \(index)") { _ in } }
        #expect(timeline.events.map(\.name) == ["step 0", "step 1", "step 2"])
        #expect(timeline.droppedEventCount == 2)
        let trace = try ParsedTrace(Data(timeline.chromeTraceJSON().utf8))
        #expect((trace.otherData["droppedEvents"] as? NSNumber)?.intValue == 2)
        #expect((trace.otherData["eventLimit"] as? NSNumber)?.intValue == 3)
        #expect((trace.otherData["note"] as? String)?.contains("dropped") == true)
        timeline.reset()
        #expect(timeline.events.isEmpty && timeline.droppedEventCount == 0)
    }

    @Test("spans nest by construction: an inner span lies within the outer one; a throwing span records its error")
    func nesting() throws {
        struct Failure: Error {}
        let timeline = HiveTimeline()
        timeline.start()
        timeline.span("outer") { arguments in
            arguments["name \"quoted\"\n"] = .string("tab\there")
            timeline.span("inner") { _ in }
            #expect(throws: Failure.self) { try timeline.span("failing") { _ throws(Failure) in throw Failure() } }
        }
        let events = timeline.events
        #expect(events.map(\.name) == ["inner", "failing", "outer"])
        let outer = events[2]
        #expect(events.dropLast().allSatisfy { $0.startNanoseconds >= outer.startNanoseconds })
        #expect(events.dropLast().allSatisfy { $0.endNanoseconds <= outer.endNanoseconds })
        #expect(events[1].arguments["error"] != nil)
        let trace = try ParsedTrace(Data(timeline.chromeTraceJSON().utf8))
        #expect(trace.partialOverlaps.isEmpty)
        #expect(trace.spans(named: "outer").first?.arguments["name \"quoted\"\n"] as? String == "tab\there")
    }

    @Test("the nesting check finds spans of one thread that overlap partly, and accepts them on two threads")
    func nestingCheck() throws {
        func trace(_ secondThread: Int) throws -> ParsedTrace {
            try ParsedTrace(
                Data(
                    """
                    {"traceEvents":[
                    {"name":"a","cat":"app","ph":"X","ts":10.000,"dur":5.000,"pid":1,"tid":1,"args":{}},
                    {"name":"b","cat":"app","ph":"X","ts":12.000,"dur":5.000,"pid":1,"tid":\(secondThread),"args":{}}
                    ]}
                    """.utf8))
        }
        #expect(try trace(1).partialOverlaps.map { "\($0.0.name) \($0.1.name)" } == ["a b"])
        #expect(try trace(2).partialOverlaps.isEmpty)
    }

    @Test("write errors are values: no path, or a folder that does not exist")
    func writeErrors() throws {
        let timeline = HiveTimeline()
        #expect(throws: HiveError.self) { try timeline.write() }
        let error = try #require(throws: HiveError.self) { try timeline.write(to: "/nonexistent-folder/trace.json") }
        #expect(error.code == .timelineNotWritten)
        #expect(error.message.contains("/nonexistent-folder/trace.json"))
    }

    @Test("BEEHIVE_TRACE: the demo, run as a child process, writes its startup timeline at exit (runs beehive-demo)")
    func traceOfAChildProcess() throws {
        let demo = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("beehive-demo").path
        try #require(FileManager.default.isExecutableFile(atPath: demo), "built by swift build --build-tests")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-trace-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: demo)
        process.environment = ProcessInfo.processInfo.environment.merging(["BEEHIVE_TRACE": path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let trace = try ParsedTrace(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(trace.partialOverlaps.isEmpty, "\(trace.partialOverlaps)")
        let walk = try #require(trace.spans(named: "scan.beforeMain").first)
        #expect(walk.arguments["start"] as? String == "not measured: drawn to end where the shared hive began")
        let start = try #require(trace.spans(named: "hive.start").first)
        #expect(walk.end <= start.start + 0.0005)
        #expect(trace.spans(named: "ingest.image").contains { $0.isWithin(start) })
        #expect(trace.spans(named: "register").contains { $0.isWithin(start) })
        #expect(!trace.spans(named: "service.bind").isEmpty)
    }
}
