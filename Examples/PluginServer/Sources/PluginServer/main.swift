// An HTTP server whose features are Swift plugins: each plugin's services and routes join BeeHive when it is loaded,
// and BeeHive's router answers every request behind one catch-all Hummingbird route (Hummingbird's own router is
// fixed once built). A feature is upgraded from a new .so while requests are served: by
// `POST /admin/upgrade/<feature>` (optionally `?path=<new .so>`) or by SIGHUP (every feature, from its path);
// `POST /admin/retire/<feature>` retires one and `POST /admin/load/<feature>?path=<.so>` loads one. Every greeting
// and price service that comes and goes is logged (`Hive.observe`). Several plugins may offer the price service at
// once, with different ranks: `GET /price/<item>` answers with the highest-ranked, `GET /prices/<item>` with all.
// `GET /debug/beehive` is the hive's report as JSON, `GET /debug/beehive.dot` as a Graphviz graph, and
// `GET /debug/beehive.html` as a page (DebugPage.swift): tables of the plugins, the services with their source and
// state, the routes, and what was withdrawn or refused (the problems).
//
//     PluginServer --port 8080 hello=/srv/plugins/libHello.so standard=/srv/plugins/libPricesStandard.so
import BeeHive
import BeeHiveRouter
import Dispatch
import Foundation
import Hummingbird
import Logging
import PluginServerAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The loaded features, by name, with the path each was loaded from; upgraded one at a time.
final class Features: @unchecked Sendable {
    private let lock = NSLock()
    private var plugins: [String: Plugin] = [:]
    private let queue = DispatchQueue(label: "plugin-upgrades")

    func load(_ name: String, path: String) throws {
        let plugin = try Hive.shared.plugins.load(path: path)
        lock.withLock { plugins[name] = plugin }
        print("loaded \(name) from \(path): \(plugin.registered.services) services, \(plugin.registered.routes) routes")
    }

    /// Upgrades `name` to the file at `path` (its own path when nil); returns what happened, for the admin answer.
    func upgrade(_ name: String, to path: String? = nil) -> String {
        queue.sync {
            guard let current = lock.withLock({ plugins[name] }) else { return "no feature \(name)\n" }
            guard current.state == .active else { return "feature \(name) is retired: load it\n" }
            do {
                let next = try Hive.shared.plugins.upgrade(current, to: path ?? current.path)
                lock.withLock { plugins[name] = next }
                return "upgraded \(name): image #\(current.imageID) -> #\(next.imageID) (\(next.path))\n"
            } catch {
                return "upgrade of \(name) failed: \(error)\n"
            }
        }
    }

    /// Retires `name`; returns what happened.
    func retire(_ name: String) -> String {
        queue.sync {
            guard let current = lock.withLock({ plugins[name] }) else { return "no feature \(name)\n" }
            do {
                try current.retire()
                return "retired \(name) (image #\(current.imageID))\n"
            } catch {
                return "retire of \(name) failed: \(error)\n"
            }
        }
    }

    /// Loads `name` from `path` (its last path when nil) after a retire; returns what happened.
    func reload(_ name: String, from path: String?) -> String {
        queue.sync {
            guard let path = path ?? lock.withLock({ plugins[name]?.path }) else { return "no path for \(name)\n" }
            do {
                try load(name, path: path)
                return "loaded \(name) from \(path)\n"
            } catch {
                return "load of \(name) failed: \(error)\n"
            }
        }
    }

    var names: [String] { lock.withLock { Array(plugins.keys) } }
}

// BeeHive's diagnostics go where this program's logs go (libBeeHiveDynamic.so has its own copy of swift-log).
LoggingSystem.bootstrap(StreamLogHandler.standardOutput)
try Hive.bootstrap(.init(logger: Logger(label: "BeeHive")))
// Joins and leaves of the greeting service, as they happen (written at once, a line at a time).
Hive.shared.observe(Greeting.self) { event in FileHandle.standardOutput.write(Data("greeting: \(event)\n".utf8)) }
Hive.shared.observe(PriceService.self) { event in FileHandle.standardOutput.write(Data("prices: \(event)\n".utf8)) }

var port = 8080
var requested: [(String, String)] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--port", let value = arguments.popFirst(), let number = Int(value) {
        port = number
    } else if let equals = argument.firstIndex(of: "=") {
        requested.append((String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
    }
}

let features = Features()
for (name, path) in requested {
    do {
        try features.load(name, path: path)
    } catch {
        print("cannot load \(name): \(error)")
        exit(1)
    }
}

/// SIGHUP: upgrades every feature from its own path (a new build copied there). A function, so that the handler is
/// not isolated to the main actor as top-level code is: it runs on a dispatch queue.
func upgradeOnHangUp(_ features: Features) -> any DispatchSourceSignal {
    signal(SIGHUP, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
    source.setEventHandler {
        for name in features.names { print(features.upgrade(name), terminator: "") }
    }
    source.resume()
    return source
}
let hangUp = upgradeOnHangUp(features)

let router = Hummingbird.Router()
router.post("/admin/upgrade/{feature}") { request, context -> String in
    let name = try context.parameters.require("feature")
    let path = request.uri.queryParameters.get("path")
    return await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: features.upgrade(name, to: path)) }
    }
}
router.post("/admin/retire/{feature}") { request, context -> String in
    let name = try context.parameters.require("feature")
    return await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: features.retire(name)) }
    }
}
router.post("/admin/load/{feature}") { request, context -> String in
    let name = try context.parameters.require("feature")
    let path = request.uri.queryParameters.get("path")
    return await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: features.reload(name, from: path)) }
    }
}
// The price service: the highest-ranked plugin that offers it, under a lease; every one, highest rank first.
router.get("/price/{item}") { _, context -> String in
    let item = try context.parameters.require("item")
    return try Hive.shared.withService(PriceService.self) { $0.price(of: item) } + "\n"
}
router.get("/prices/{item}") { _, context -> String in
    let item = try context.parameters.require("item")
    return try Hive.shared.services(PriceService.self).map { $0.price(of: item) + "\n" }.joined()
}
// What the hive holds: every registration with its source, state and plugin, what was withdrawn, the problems
// (Hive.report(), schema in Docs/Report.md).
router.get("/debug/beehive") { _, _ -> String in
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(Hive.shared.report()), as: UTF8.self) + "\n"
}
// The same as a Graphviz graph: `curl …/debug/beehive.dot | dot -Tsvg > hive.svg`.
router.get("/debug/beehive.dot") { _, _ -> String in Hive.shared.report().graphviz }
// The same as a page, which fetches the JSON above and renders it (DebugPage.swift).
router.get("/debug/beehive.html") { _, _ -> Response in DebugPage.response() }
// Every other request: BeeHive's router for the scheme app, with the request's path.
router.get("/**") { request, context -> String in
    let url = "app:/" + request.uri.path
    do {
        guard let answer = try BeeHiveRouter.Router.forScheme("app").open(url) else { return "\n" }
        return "\(answer)\n"
    } catch let error as RouterError where error.code == .routeNotFound {
        throw HTTPError(.notFound, message: "no route for \(url)")
    }
}

let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
print("listening on 127.0.0.1:\(port)")
try await app.runService()
