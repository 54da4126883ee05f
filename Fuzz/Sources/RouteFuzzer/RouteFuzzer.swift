import BeeHive
import BeeHiveRouter
import FuzzCheck

/// Fuzzes route patterns, URL parsing, matching, opening and `Router.generateURL`.
///
/// The input is a script of lines: `p <pattern>` registers a pattern, `u <url>` opens a URL, `v <value>` adds a
/// value for generated URLs, `q <name>=<value>` adds a query item to them; any other line is used both as a pattern
/// and as a URL. Checked for every input:
/// - a pattern's normalised spelling parses back to the same pattern;
/// - registration fails with `duplicateRoute` exactly when a pattern of the same shape is registered;
/// - every registered pattern, filled by `generateURL`, gives a URL that opens on the route a reference matcher
///   picks (literal before `:param` before `~`, at the first component where they differ; a `~` before the last
///   component is one component and ranks as a `:param`), with the values back; `generateURL` refuses a pattern
///   with such a `~` (it has no name to take a value by), so the URL is made from the pattern with a literal there;
/// - `match`, `canOpen` and `open` agree on every URL, and a matched URL survives match → generateURL → match;
/// - every match costs at most the bound `RouteMatch.__matchCost` documents;
/// - the registered patterns and counts follow registrations and removals.
@main
enum RouteFuzzer {
    static func main() { runFuzzer(fuzzRoutes) }
}

/// The parsed input.
struct Script {
    var patterns: [String] = []
    var urls: [String] = []
    var values: [String] = []
    var query: [(name: String, value: String)] = []

    init(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(256) {
            let rest = String(line.dropFirst(2))
            switch line.prefix(2) {
            case "p ": patterns.append(rest)
            case "u ": urls.append(rest)
            case "v ": values.append(rest)
            case "q ":
                let pair = rest.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query.append((String(pair[0]), pair.count > 1 ? String(pair[1]) : ""))
            default:
                patterns.append(String(line))
                urls.append(String(line))
            }
        }
    }
}

/// A router under test and the shapes registered on it, as the reference sees them.
final class RouterModel {
    let router: Router
    var routes: [(text: String, shape: Shape)] = []

    init(_ router: Router) { self.router = router }

    /// The bound `RouteMatch.__matchCost` documents: `(n + 1) · (1 + 4w) + 64w` for `n` components (counting at
    /// most one more than the longest pattern of the scheme) and `w = ⌈R/64⌉` with `R` routes under the scheme.
    func costBound(scheme: String, components: Int) -> Int {
        let shapes = routes.map(\.shape).filter { $0.scheme == scheme }
        let longest = shapes.map(\.parts.count).max() ?? 0
        let n = min(components, longest + 1)
        let w = (shapes.count + 63) / 64
        return (n + 1) * (1 + 4 * w) + 64 * w
    }

    /// The registered route the reference picks for these components.
    func best(scheme: String, _ components: [String]) -> Shape? {
        routes.map(\.shape).filter { $0.scheme == scheme && $0.matches(components) }.min { $0.precedes($1, components) }
    }

    /// A component no registered literal equals: what a middle `~` matched, when only the route is known. It leads
    /// the reference to the route a URL with the real component there matched, or to nothing else: the routes it
    /// matches are among those the real component matches.
    var componentNoLiteralEquals: String {
        var literals: Set<String> = []
        for route in routes {
            for case .literal(let text) in route.shape.parts { literals.insert(text) }
        }
        var component = "~any"
        while literals.contains(component) { component += "~" }
        return component
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRoutes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let script = Script(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    let anyScheme = RouterModel(Router())
    let app = RouterModel(Router(scheme: "app"))
    // Up to 160 patterns, so that some schemes hold more than 64 routes (two words per bit set).
    for text in script.patterns.prefix(160) {
        register(text, on: anyScheme)
        register(text, on: app)
    }
    for model in [anyScheme, app] {
        checkRegistry(model)
        for route in model.routes.prefix(24) {
            checkGeneratedURL(route, on: model, script)
        }
        for url in script.urls.prefix(16) {
            checkOpening(url, on: model)
        }
        for route in model.routes {
            check(model.router.deregister(pattern: route.text), "deregistering '\(route.text)' found no route")
        }
        check(model.router.routeCount == 0, "\(model.router.routeCount) routes left after removing every one")
        check(model.router.registeredPatterns.isEmpty, "patterns left: \(model.router.registeredPatterns)")
    }
    return 0
}

func register(_ text: String, on model: RouterModel) {
    let pattern: RoutePattern
    do {
        pattern = try RoutePattern(text)
    } catch {
        check(error.code == .malformedPattern, "RoutePattern('\(text)') failed with \(error)")
        checkFails(
            try model.router.register(pattern: text) { _ in nil }, with: .malformedPattern, "register('\(text)')")
        checkFails(try Router.generateURL(pattern: text), with: .malformedPattern, "generateURL('\(text)')")
        return
    }
    checkPattern(pattern, text)
    let own = model.router.scheme
    switch (pattern.scheme, own) {
    case (nil, nil):
        checkFails(
            try model.router.register(pattern: text) { _ in nil }, with: .malformedPattern, "register('\(text)')")
        return
    case (let given?, let own?) where given != own:
        checkFails(try model.router.register(pattern: text) { _ in nil }, with: .unknownScheme, "register('\(text)')")
        return
    default: break
    }
    let shape = Shape(pattern, scheme: pattern.scheme ?? own!)
    let existing = model.routes.first { $0.shape.sameRoute(as: shape) }
    let spelling = shape.description
    do {
        try model.router.register(pattern: text) { _ in spelling }
        check(existing == nil, "registered '\(text)' although '\(existing!.text)' matches the same URLs")
        model.routes.append((text, shape))
    } catch {
        check(
            error.code == .duplicateRoute && existing != nil,
            "register('\(text)') failed with \(error); registered before: \(model.routes.map(\.text))")
    }
}

/// The normalised spelling round-trips; parameter names are valid and distinct.
func checkPattern(_ pattern: RoutePattern, _ text: String) {
    let again = try? RoutePattern(pattern.description)
    check(
        again == pattern,
        "'\(text)' normalises to '\(pattern)', which parses to \(again.map { "'\($0)'" } ?? "an error")")
    let names = pattern.parameterNames
    check(Set(names).count == names.count, "'\(text)': parameter names repeat: \(names)")
    for name in names {
        check(
            !name.isEmpty
                && name.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0 == "_" || $0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
                },
            "'\(text)': invalid parameter name '\(name)'")
    }
    check(pattern.hasWildcard == Shape(pattern, scheme: "x").parts.contains(.wildcard), "'\(text)': hasWildcard wrong")
}

func checkRegistry(_ model: RouterModel) {
    check(
        model.router.routeCount == model.routes.count,
        "routeCount \(model.router.routeCount), registered \(model.routes.count)")
    // Compared as shapes: a literal may be spelled more than one way.
    let expected = model.routes.map(\.shape.description).sorted()
    let found = model.router.registeredPatterns.map { Shape.reading($0)?.description ?? "unreadable '\($0)'" }
    check(found.sorted() == expected, "registeredPatterns \(model.router.registeredPatterns), expected \(expected)")
}

/// Fills a registered pattern with values and opens the result.
func checkGeneratedURL(_ route: (text: String, shape: Shape), on model: RouterModel, _ script: Script) {
    let pool = script.values.isEmpty ? ["1", "a/b", "ü ?&=#%"] : script.values
    var parameters: [String: String] = [:]
    var components: [String] = []
    var emptyPathValue = false
    for (index, part) in route.shape.parts.enumerated() {
        let value = pool[index % pool.count]
        switch part {
        case .literal(let text): components.append(text)
        case .parameter(let name):
            parameters[name] = value
            components.append(route.shape.component(value, at: index))
            emptyPathValue = emptyPathValue || value.isEmpty
        case .wildcard:
            parameters["~"] = value
            components += pathComponents(value)
        case .anyComponent:
            components.append(value.isEmpty ? "m" : value)
        }
    }
    // Query item names must be non-empty (the URL parser drops `=value`) and not "~" (the wildcard's value).
    var query: [String: String] = [:]
    for (name, value) in script.query where !name.isEmpty && name != "~" && parameters[name] == nil {
        query[name] = value
    }
    // A middle `~` has no value to generate: the URL is made from the pattern with a literal there.
    var source = route.text
    if route.shape.hasAnyComponent {
        checkFails(
            try Router.generateURL(pattern: route.text, parameters: parameters), with: .malformedPattern,
            "generateURL('\(route.text)') with a '~' before the last component")
        source = route.shape.filling(anyComponentsFrom: components).description
    }
    let url: String
    do {
        url = try Router.generateURL(pattern: source, parameters: parameters.merging(query) { a, _ in a })
        check(!emptyPathValue, "generateURL('\(route.text)') accepted an empty path value: '\(url)'")
    } catch {
        check(
            error.code == .invalidParameter && emptyPathValue,
            "generateURL('\(route.text)', \(parameters)) failed with \(error)")
        return
    }
    let scheme = route.shape.scheme
    let full = route.shape.hasOwnScheme || source != route.text ? url : "\(scheme)://" + url
    guard let expected = model.best(scheme: scheme, components) else {
        check(false, "the reference matcher found no route for '\(full)' although '\(route.text)' generated it")
        return
    }
    let match: RouteMatch
    do {
        match = try model.router.match(full)
    } catch {
        check(false, "'\(full)', generated from '\(route.text)' with \(parameters), does not match: \(error)")
        return
    }
    check(
        Shape.reading(match.pattern) == expected,
        "'\(full)' matched '\(match.pattern)'; the reference picks '\(expected)' for components \(components)")
    let bound = model.costBound(scheme: scheme, components: components.count)
    check(match.__matchCost <= bound, "matching '\(full)' cost \(match.__matchCost) steps, over the bound \(bound)")
    var values = query
    values.merge(expected.captures(components)) { _, capture in capture }
    check(
        match.parameters.values == values,
        "'\(full)' on '\(match.pattern)': parameters \(match.parameters.values), expected \(values)")
    check(
        match.wildcardComponents == expected.wildcardComponents(components),
        "'\(full)': wildcard components \(match.wildcardComponents), expected \(expected.wildcardComponents(components))"
    )
    check(model.router.canOpen(full), "match('\(full)') succeeds but canOpen is false")
    check(model.router.canOpen(full, matching: .prefix), "match('\(full)') succeeds but canOpen(.prefix) is false")
    let opened = try? model.router.open(full) as? String
    check(opened == expected.description, "open('\(full)') ran \(opened ?? "nothing"), expected '\(expected)'")
}

/// `match`, `canOpen` and `open` agree; a match survives match → generateURL → match.
func checkOpening(_ url: String, on model: RouterModel) {
    let router = model.router
    let match = Result { () throws(RouterError) in try router.match(url) }
    let opened = Result { try router.open(url) }
    check(router.canOpen(url) == ((try? match.get()) != nil), "canOpen('\(url)') disagrees with match: \(match)")
    guard case .success(let found) = match else {
        if case .failure(let error) = match {
            check(
                [.malformedURL, .unknownScheme, .routeNotFound].contains(error.code),
                "match('\(url)') failed with \(error)")
        }
        check((try? opened.get()) == nil, "open('\(url)') succeeded although match failed")
        return
    }
    check((try? opened.get()) as? String == found.pattern, "open('\(url)') disagrees with match '\(found.pattern)'")

    // The components the route saw, rebuilt from the match, must lead the reference to the same route.
    let matched = Shape.reading(found.pattern)
    guard let shape = model.routes.map(\.shape).first(where: { $0 == matched }) else {
        check(false, "'\(url)' matched '\(found.pattern)', which is not registered")
        return
    }
    var components: [String] = []
    let unknown = model.componentNoLiteralEquals
    for (index, part) in shape.parts.enumerated() {
        switch part {
        case .literal(let text): components.append(text)
        case .parameter(let name): components.append(shape.component(found.parameters[name] ?? "", at: index))
        case .wildcard: components += found.wildcardComponents
        case .anyComponent: components.append(unknown)
        }
    }
    let bound = model.costBound(scheme: shape.scheme, components: components.count)
    check(found.__matchCost <= bound, "matching '\(url)' cost \(found.__matchCost) steps, over the bound \(bound)")
    let expected = model.best(scheme: shape.scheme, components)
    check(
        expected == shape,
        "'\(url)' matched '\(found.pattern)'; the reference picks \(expected.map { "'\($0)'" } ?? "nothing") "
            + "for components \(components)")

    // Round trip, where generateURL can express the match: a wildcard component containing '/' cannot be, and
    // a query item named "~" is taken for the wildcard's value.
    let slash = UInt8(ascii: "/")
    guard found.parameters["~"] == nil, !found.wildcardComponents.contains(where: { $0.utf8.contains(slash) }) else {
        return
    }
    var parameters: [String: String] = found.parameters.values
    if shape.parts.last == .wildcard { parameters["~"] = found.wildcardComponents.joined(separator: "/") }
    // A middle `~` has no value: generateURL refuses it, and the round trip puts the component above there.
    var source = found.pattern
    if shape.hasAnyComponent {
        checkFails(
            try Router.generateURL(pattern: found.pattern, parameters: parameters), with: .malformedPattern,
            "generateURL('\(found.pattern)') with a '~' before the last component")
        source = shape.filling(anyComponentsFrom: components).description
    }
    do {
        let again = try Router.generateURL(pattern: source, parameters: parameters)
        let second = try router.match(again)
        check(
            second.pattern == found.pattern && second.parameters == found.parameters
                && second.wildcardComponents == found.wildcardComponents,
            "'\(url)' → '\(again)': matched '\(second.pattern)' \(second.parameters) \(second.wildcardComponents), "
                + "first '\(found.pattern)' \(found.parameters) \(found.wildcardComponents)")
    } catch {
        check(false, "'\(url)' matched '\(found.pattern)' with \(parameters), which does not round-trip: \(error)")
    }
}

func checkFails<T>(_ body: @autoclosure () throws -> T, with code: RouterError.Code, _ what: String) {
    do {
        _ = try body()
        check(false, "\(what) succeeded; expected \(code)")
    } catch let error as RouterError {
        check(error.code == code, "\(what) failed with \(error); expected \(code)")
    } catch {
        check(false, "\(what) threw \(error); expected a RouterError")
    }
}
