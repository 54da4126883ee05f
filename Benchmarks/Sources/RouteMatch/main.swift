import BeeHiveRouter
import RoutingKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Route matching, BeeHive's router against RoutingKit's TrieRouter (the router of Vapor), from a URL string:
//
//     RouteMatch <beehive|routingkit> <routes> <matches>
//
// builds a table of `routes` routes, `app://section<i>/item/:id/detail` and `app://section<i>/list/~` (a
// catch-all; `**` in RoutingKit), half each, then matches three URLs `matches` times in all, round-robin. URL parsing
// is included on both sides: BeeHive's `Router.match(_:)` takes the string; for RoutingKit the string is cut at `?`
// and split at `/` (scheme dropped), the least a server does before `TrieRouter.route(path:parameters:)`. Both must
// find the expected route for every URL, or the program exits 1.
//
// Prints `matched=<n> ns_per_match=<wall clock> mechanism=<name>`; instructions per match come from callgrind,
// (Ir(K) − Ir(0)) / K of the same program (Tools/firstuse.py).

/// The URLs matched, each with the route it must find (its section and whether it is the catch-all).
let urls: [(url: String, section: Int, catchAll: Bool)] = [
    ("app://section250/item/42/detail", 250, false),
    ("app://section250/list/a/b/c/d/e/f/g/h/i?tab=posts&sort=new", 250, true),
    ("app://section3/item/x/detail?from=push", 3, false),
]

/// Writes `message` and a newline to the standard error.
func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    printError("RouteMatch: \(message)")
    exit(1)
}

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// The route index found, stored so that no match is optimized away.
nonisolated(unsafe) var sink = 0

/// A route's index: `2 × section` for the item route, `2 × section + 1` for the catch-all.
func expected(_ entry: (url: String, section: Int, catchAll: Bool)) -> Int {
    entry.section * 2 + (entry.catchAll ? 1 : 0)
}

@inline(never)
func match(_ router: BeeHiveRouter.Router, _ url: String) {
    do {
        let found = try router.match(url)
        sink = found.pattern.hasSuffix("/detail") ? 0 : 1
    } catch {
        fail("BeeHive did not match \(url): \(error)")
    }
}

@inline(never)
func match(_ router: TrieRouter<Int>, _ url: String) {
    // URL parsing: the path components after the scheme, without the query.
    let withoutQuery = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
    var components = withoutQuery.split(separator: "/").map(String.init)
    components.removeFirst()  // "app:"
    var parameters = Parameters()
    guard let found = router.route(path: components, parameters: &parameters) else {
        fail("RoutingKit did not match \(url)")
    }
    sink = found
}

let arguments = CommandLine.arguments
guard arguments.count == 4, ["beehive", "routingkit"].contains(arguments[1]),
    let routes = Int(arguments[2]), routes >= 502, routes % 2 == 0, let matches = Int(arguments[3]), matches >= 0
else {
    printError("usage: RouteMatch beehive|routingkit <routes: even, ≥ 502> <matches ≥ 0>")
    exit(2)
}
let mechanism = arguments[1]
let step: (Int) -> Void
if mechanism == "beehive" {
    let router = BeeHiveRouter.Router(scheme: "app")
    for i in 0..<routes / 2 {
        do {
            try router.register(pattern: "app://section\(i)/item/:id/detail") { _ in nil }
            try router.register(pattern: "app://section\(i)/list/~") { _ in nil }
        } catch {
            fail("registering route \(i): \(error)")
        }
    }
    guard router.routeCount == routes else { fail("the router holds \(router.routeCount) routes") }
    for entry in urls {
        let want = entry.catchAll ? "app://section\(entry.section)/list/" : "app://section\(entry.section)/item/"
        do {
            let found = try router.match(entry.url)
            guard found.pattern.hasPrefix(want) else {
                fail("\(entry.url) matched \(found.pattern); expected \(want)…")
            }
        } catch {
            fail("BeeHive did not match \(entry.url): \(error)")
        }
    }
    step = { match(router, urls[$0].url) }
} else {
    let router = TrieRouter(Int.self)
    for i in 0..<routes / 2 {
        router.register(
            i * 2, at: [.constant("section\(i)"), .constant("item"), .parameter("id"), .constant("detail")])
        router.register(i * 2 + 1, at: [.constant("section\(i)"), .constant("list"), .catchall])
    }
    for entry in urls {
        match(router, entry.url)
        guard sink == expected(entry) else { fail("\(entry.url) matched route \(sink); expected \(expected(entry))") }
    }
    step = { match(router, urls[$0].url) }
}
let start = now()
for i in 0..<matches {
    step(i % urls.count)
}
let elapsed = now() - start
let perMatch = matches > 0 ? Double(elapsed) / Double(matches) : 0
print("matched=\(matches) ns_per_match=\(Int(perMatch.rounded())) mechanism=\(mechanism) routes=\(routes)")
