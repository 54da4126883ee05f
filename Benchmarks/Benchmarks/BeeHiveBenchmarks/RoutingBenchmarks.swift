import BeeHive
import BeeHiveRouter
import Benchmark

/// How many matches one routing sample makes.
let matchesPerSample = 1_000

/// A router holding `count` routes: `app://section<i>/item/:id/detail` and `app://section<i>/list/~`, half each.
func makeRouter(routes count: Int) -> Router {
    let router = Router(scheme: "app")
    for i in 0..<count / 2 {
        do {
            try router.register(pattern: "app://section\(i)/item/:id/detail") { _ in nil }
            try router.register(pattern: "app://section\(i)/list/~") { _ in nil }
        } catch {
            fatalError("registering route \(i): \(error)")
        }
    }
    guard router.routeCount == count else {
        fatalError("expected \(count) routes; the router holds \(router.routeCount)")
    }
    return router
}

/// A router holding a "staircase" of `count` overlapping patterns, with `d = count - 2`: for `i` in `0...d`,
/// `app://a/` then `i` parameters, `d - i` literals `x` and `z`; and the catch-all `app://a/:q1/…/:q(d+1)`.
///
/// A backtracking walk of a pattern tree matching `app://a/x/…/x/y` (`count` components) explores every step's
/// literal branch down to its `z` before it reaches the catch-all: about `d²/2` nodes.
func makeStaircase(patterns count: Int) -> Router {
    let d = count - 2
    let router = Router(scheme: "app")
    var patterns = (0...d).map { i in
        "app://a/"
            + ((0..<i).map { ":p\($0 + 1)" } + Array(repeating: "x", count: d - i) + ["z"])
            .joined(separator: "/")
    }
    patterns.append("app://a/" + (1...d + 1).map { ":q\($0)" }.joined(separator: "/"))
    for pattern in patterns {
        do {
            try router.register(pattern: pattern) { _ in nil }
        } catch {
            fatalError("registering the staircase: \(error)")
        }
    }
    guard router.routeCount == count else {
        fatalError("expected \(count) routes; the router holds \(router.routeCount)")
    }
    return router
}

/// `route/match/<routes>/<url>-x1000`: 1,000 matches per sample of a URL against 1,000 or 10,000 routes.
///
/// The cost must follow the URL's length (`short`: 3 components, `long`: 12), not the number of routes.
///
/// `route/staircase/1024/<case>`: one match per iteration of a 1,024-component URL against the 1,024 patterns of
/// ``makeStaircase(patterns:)``, the router's worst case (issue 8: at most 1 ms). `catch-all` ends the URL in `y`:
/// every step's literals fit it up to the last component, and only the catch-all matches (1,023 parameters
/// captured). `every-step` ends it in `z`: every pattern matches and no component narrows them, so the router
/// intersects bit sets at each of the 1,024 positions and ranks all 1,024 routes.
func registerRoutingBenchmarks() {
    let staircase = 1_024
    for (label, last, winner) in [("catch-all", "y", "app://a/:q1/"), ("every-step", "z", "app://a/x/")] {
        let url = "app://a/" + (Array(repeating: "x", count: staircase - 2) + [last]).joined(separator: "/")
        var router: Router?
        Benchmark("route/staircase/\(staircase)/\(label)") { benchmark in
            let router = router!
            for _ in benchmark.scaledIterations { blackHole(try router.match(url)) }
        } setup: {
            router = makeStaircase(patterns: staircase)
            let match = try router!.match(url)
            guard match.pattern.hasPrefix(winner) else {
                fatalError("\(url.prefix(40))… matched \(match.pattern.prefix(40))…, expected \(winner)…")
            }
        } teardown: {
            router = nil
        }
    }

    let urls = [
        ("short", "app://section250/item/42/detail"),
        ("long", "app://section250/list/a/b/c/d/e/f/g/h/i?tab=posts&sort=new"),
    ]
    for routes in [1_000, 10_000] {
        for (label, url) in urls {
            var router: Router?
            Benchmark("route/match/\(routes)/\(label)-x\(matchesPerSample)") { benchmark in
                let router = router!
                for _ in benchmark.scaledIterations {
                    for _ in 0..<matchesPerSample { blackHole(try router.match(url)) }
                }
            } setup: {
                router = makeRouter(routes: routes)
                let match = try router!.match(url)
                guard match.pattern.hasPrefix("app://section250/") else {
                    fatalError("\(url) matched \(match.pattern), expected a section250 route")
                }
            } teardown: {
                router = nil
            }
        }
    }
}
