import BeeHive
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

/// `route/match/<routes>/<url>-x1000`: 1,000 matches per sample of a URL against 1,000 or 10,000 routes.
///
/// The cost must follow the URL's length (`short`: 3 components, `long`: 12), not the number of routes.
func registerRoutingBenchmarks() {
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
