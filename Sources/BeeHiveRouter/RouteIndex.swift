import BeeHive

/// The routes of a router (or the sources of a redirect table), indexed by scheme and then by path position.
///
/// For each position of the path (the host is position 0) the index keeps which routes have each literal there,
/// which have a `:param` there, which end there and which have their `~` there. A URL is matched position by
/// position against those sets, never by walking the patterns one by one.
///
/// ## Precedence
///
/// At every position a literal beats a `:param`, which beats a `~` wildcard; at the end of the URL a pattern that ends
/// there beats a `~` there. This is what a backtracking walk of a tree of patterns picks (try the literal child, then
/// the parameter child, then the wildcard, falling back when a branch dead-ends): with `app://a/b/c` and
/// `app://a/:x/d`, the URL `app://a/b/d` matches the second route. Among the routes that match a URL, the winner is
/// decided at the first position where they differ: a literal beats a `:param` there, a pattern that goes on beats a
/// `~` there, and at the end a pattern without `~` beats one with it. A `~` before a pattern's last component matches
/// exactly one component and is indexed and ranked as a `:param` that captures nothing, so it costs what a `:param`
/// costs.
///
/// All `:name` components at one position are one parameter position; the names live in each route's pattern and
/// are bound to the captured values only after a match. That is what lets `app://search/:query/results` and
/// `app://search/:keyword/suggest` coexist (MGJRouter's bug was a single dictionary key per parameter name at a
/// node), while `app://search/:query` and `app://search/:keyword` are the same route and the second insert fails
/// with ``RouterError/Code/duplicateRoute``.
///
/// ## Cost
///
/// Matching a URL of `n` components (counting at most one more than the longest pattern of its scheme) against
/// the `R` routes of its scheme, with `w = ⌈R/64⌉`:
/// 1. one dictionary probe per position, at most `n + 1` in all, which tells how many routes each position allows;
///    probing stops at a position that allows at most 4 routes;
/// 2. if the position that allows the fewest routes allows at most `4w`, those candidates are compared with the
///    URL, at most `n` components each; this is the usual case, where a literal such as the host narrows the
///    routes to a few, and its cost does not grow with `R`;
/// 3. otherwise the allowed sets are intersected as bit sets of `w` 64-bit words, one pass per position, and the
///    routes left are ranked by precedence.
///
/// So a match costs at most ``costBound(components:routes:)`` steps, `O(n · ⌈R/64⌉)`, whatever the patterns; a
/// prefix check (``hasRoute(withPrefix:scheme:)``) the same. A "staircase" of 1,024 overlapping patterns matched by
/// a 1,024-component URL, for which a backtracking walk of a pattern tree visits half a million nodes, costs 2,050
/// steps here when one component rules out all but the catch-all, and 18,449 when every pattern matches and no
/// component narrows them (the bound is 67,649). No known index makes the cost independent of `R` without memory
/// exponential in the patterns' length: deciding whether any of `R` patterns with `:param`s matches a URL is the
/// partial-match problem, with the don't-cares in the patterns. ``Match/cost`` makes the actual work observable in
/// tests and benchmarks.
///
/// Memory: one set entry per pattern component, plus a bit set of at most `w` words for each set that has at least
/// that many members.
struct RouteIndex<Payload: Sendable>: Sendable {
    /// A stored route.
    struct Route: Sendable {
        var pattern: RoutePattern
        var payload: Payload
        /// Where the route was registered (`File.swift:12`, or a record's source), for messages.
        var origin: String?
        /// The pattern's spelling, parameter names and their positions, computed once at registration, not per
        /// match.
        var text: String
        var parameterNames: [String]
        var parameterPositions: [Int]
        /// The number of components before the `~`, or of all components without one.
        var extent: Int
        var hasWildcard: Bool
        /// Bit `j` is set when component `j` is a `:param`: what ranks routes that match the same URL.
        var parameterBits: [UInt64]

        init(pattern: RoutePattern, payload: Payload, origin: String? = nil) {
            self.pattern = pattern
            self.payload = payload
            self.origin = origin
            self.text = pattern.description
            self.parameterNames = pattern.parameterNames
            self.parameterPositions = pattern.segments.indices.filter { position in
                if case .parameter = pattern.segments[position] { true } else { false }
            }
            self.hasWildcard = pattern.hasWildcard
            self.extent = pattern.segments.count - (pattern.hasWildcard ? 1 : 0)
            var bits = [UInt64](repeating: 0, count: (extent + 63) / 64)
            for (position, segment) in pattern.segments.enumerated() {
                switch segment {
                case .parameter, .anyComponent: bits[position >> 6] |= 1 << UInt64(position & 63)
                case .literal, .wildcard: break
                }
            }
            self.parameterBits = bits
        }

        /// The value a parameter captures from a URL component: the component, without the parameter's literal
        /// suffix at its end (MGJRouter's `:id.html` captures `42` from `42.html`, and `42` from `42`).
        func capture(_ component: String, at position: Int) -> String {
            guard let suffix = pattern.suffix(at: position) else { return component }
            // On bytes: the suffix starts with an ASCII `.` or `&`, so cutting before it never splits a character's
            // scalars.
            let bytes = component.utf8
            guard bytes.count > suffix.utf8.count, bytes.suffix(suffix.utf8.count).elementsEqual(suffix.utf8) else {
                return component
            }
            return String(decoding: bytes.dropLast(suffix.utf8.count), as: UTF8.self)
        }

        /// Whether this route wins over another that matches the same URL (see "Precedence" on the type).
        func precedes(_ other: Route) -> Bool {
            let common = min(extent, other.extent)
            for word in 0..<(common + 63) / 64 {
                var differing = parameterBits[word] ^ other.parameterBits[word]
                let valid = common - word * 64
                if valid < 64 { differing &= (1 << UInt64(valid)) - 1 }
                if differing != 0 {
                    // The first position where one has a literal and the other a parameter: the literal wins.
                    return parameterBits[word] & (1 << UInt64(differing.trailingZeroBitCount)) == 0
                }
            }
            if extent != other.extent { return extent > other.extent }
            return !hasWildcard
        }
    }

    /// A successful match.
    struct Match: Sendable {
        var route: Route
        /// The parameter values keyed by the route pattern's parameter names.
        var captures: [String: String]
        /// The components matched by `~`, empty when the pattern has no wildcard.
        var wildcardComponents: [String]
        /// The steps the match took: probes, components compared, 64-bit word passes, routes ranked. At most
        /// ``RouteIndex/costBound(components:routes:)``.
        var cost: Int
    }

    private var tables: [String: Table] = [:]

    /// The number of routes stored.
    private(set) var count = 0

    /// The most steps a match can take (``Match/cost``): `(n + 1) · (1 + 4w) + 64w` with `w = ⌈R/64⌉`.
    ///
    /// - Parameters:
    ///   - components: `n`, the URL's number of components, or one more than the longest pattern if that is fewer.
    ///   - routes: `R`, the number of routes stored for the URL's scheme.
    static func costBound(components: Int, routes: Int) -> Int {
        let words = max(1, (routes + 63) / 64)
        return (components + 1) * (1 + 4 * words) + 64 * words
    }

    /// Whether any route is stored for the scheme.
    func contains(scheme: String) -> Bool {
        tables[scheme] != nil
    }

    /// All stored patterns, sorted by their description.
    var patterns: [RoutePattern] {
        tables.values.flatMap { $0.routes.compactMap { $0?.pattern } }.sorted { $0.description < $1.description }
    }

    // MARK: - Insertion and removal

    /// Stores a route.
    ///
    /// - Throws: ``RouterError/Code/duplicateRoute`` when a pattern of the same shape is stored; nothing changes.
    mutating func insert(_ pattern: RoutePattern, payload: Payload, origin: String? = nil) throws(RouterError) {
        guard let scheme = pattern.scheme else {
            throw RouterError(.malformedPattern, "pattern '\(pattern)': expected 'scheme://…', found no scheme")
        }
        var table = tables.removeValue(forKey: scheme) ?? Table()
        defer { tables[scheme] = table.count > 0 ? table : nil }
        try table.insert(Route(pattern: pattern, payload: payload, origin: origin))
        count += 1
    }

    /// Removes the route with exactly this pattern (parameter names included).
    ///
    /// - Returns: The removed route, or `nil` when no route has this pattern.
    mutating func remove(_ pattern: RoutePattern) -> Route? {
        guard let scheme = pattern.scheme, var table = tables.removeValue(forKey: scheme) else { return nil }
        defer { tables[scheme] = table.count > 0 ? table : nil }
        let removed = table.remove(pattern)
        if removed != nil { count -= 1 }
        return removed
    }

    // MARK: - Matching

    /// Finds the route for a URL's components, honouring the precedence described on the type.
    func match(scheme: String, segments: [String]) -> Match? {
        tables[scheme]?.match(segments)
    }

    /// Whether some stored route begins with these components, or a wildcard route covers them.
    func hasRoute(withPrefix segments: [String], scheme: String) -> Bool {
        tables[scheme]?.hasRoute(withPrefix: segments) ?? false
    }
}

// MARK: - One scheme's routes

extension RouteIndex {
    /// What one path position holds: routes by their component there.
    private struct Column: Sendable {
        var literals: [String: SlotSet] = [:]
        var parameters = SlotSet()
        /// Routes without `~` that have exactly this position's number of components.
        var ends = SlotSet()
        /// Routes whose `~` is at this position.
        var wildcards = SlotSet()

        var isEmpty: Bool { literals.isEmpty && parameters.isEmpty && ends.isEmpty && wildcards.isEmpty }
    }

    /// A requirement on the matched routes: the routes one position allows, or the routes the URL's end allows.
    private struct Requirement {
        /// The position, or `nil` for the end of the URL.
        var position: Int?
        /// The routes with the URL's component as a literal at the position.
        var literal: SlotSet?
        /// The last position whose `~` routes are allowed (they accept any components from there on), or -1.
        var wildcardsThrough: Int
        var size: Int
    }

    private struct Table: Sendable {
        /// The routes by slot; a removed route leaves `nil` and its slot is reused.
        var routes: [Route?] = []
        var freeSlots: [Int] = []
        /// Each route's pattern with parameter names erased, to find the same route under other names.
        var shapes: [RoutePattern: Int] = [:]
        var columns: [Column] = []
        var count = 0

        /// The number of 64-bit words of a set of slots.
        var words: Int { max(1, (routes.count + 63) / 64) }

        /// A number of candidate routes small enough to compare with the URL without probing further positions.
        static var fewCandidates: Int { 4 }

        mutating func insert(_ route: Route) throws(RouterError) {
            let shape = route.pattern.shape
            if let existing = shapes[shape], let stored = routes[existing] {
                throw Self.duplicate(route, stored)
            }
            let slot: Int
            if let free = freeSlots.popLast() {
                slot = free
                routes[slot] = route
            } else {
                slot = routes.count
                routes.append(route)
            }
            shapes[shape] = slot
            let threshold = words
            while columns.count <= route.extent { columns.append(Column()) }
            for (position, segment) in route.pattern.segments.enumerated() {
                switch segment {
                case .literal(let text):
                    columns[position].literals[text, default: SlotSet()].insert(slot, denseFrom: threshold)
                case .parameter, .anyComponent:
                    columns[position].parameters.insert(slot, denseFrom: threshold)
                case .wildcard:
                    columns[position].wildcards.insert(slot, denseFrom: threshold)
                }
            }
            if !route.hasWildcard { columns[route.extent].ends.insert(slot, denseFrom: threshold) }
            count += 1
        }

        mutating func remove(_ pattern: RoutePattern) -> Route? {
            let shape = pattern.shape
            guard let slot = shapes[shape], let route = routes[slot], route.pattern == pattern else { return nil }
            shapes[shape] = nil
            routes[slot] = nil
            freeSlots.append(slot)
            for (position, segment) in pattern.segments.enumerated() {
                switch segment {
                case .literal(let text):
                    columns[position].literals[text]?.remove(slot)
                    if columns[position].literals[text]?.isEmpty == true { columns[position].literals[text] = nil }
                case .parameter, .anyComponent:
                    columns[position].parameters.remove(slot)
                case .wildcard:
                    columns[position].wildcards.remove(slot)
                }
            }
            if !route.hasWildcard { columns[route.extent].ends.remove(slot) }
            while columns.last?.isEmpty == true { columns.removeLast() }
            count -= 1
            return route
        }

        private static func duplicate(_ new: Route, _ existing: Route) -> RouterError {
            let registered = existing.origin.map { " at \($0)" } ?? ""
            let differ =
                new.pattern.segments.elementsEqual(existing.pattern.segments) { $0.isOneComponent == $1.isOneComponent }
                ? "only parameter names differ" : "a '~' in the middle matches one component as a ':name' does"
            let detail =
                new.pattern == existing.pattern
                ? "it is already registered\(registered)"
                : "it matches exactly the same URLs as '\(existing.pattern)', registered\(registered) (\(differ))"
            let place = new.origin.map { " (\($0))" } ?? ""
            return RouterError(
                .duplicateRoute,
                "pattern '\(new.pattern)'\(place): expected a route no other pattern covers, found that \(detail); "
                    + "deregister it first"
            )
        }

        // MARK: Matching

        func match(_ url: [String]) -> Match? {
            var cost = 0
            var best: Int?
            for slot in survivors(url, wholeURL: true, cost: &cost) {
                cost += 1
                if let current = best, !routes[slot]!.precedes(routes[current]!) { continue }
                best = slot
            }
            guard let best, let route = routes[best] else { return nil }
            let captures = Dictionary(
                zip(route.parameterNames, route.parameterPositions.lazy.map { route.capture(url[$0], at: $0) }),
                uniquingKeysWith: { $1 })
            let rest = route.hasWildcard ? Array(url[route.extent...]) : []
            return Match(route: route, captures: captures, wildcardComponents: rest, cost: cost)
        }

        func hasRoute(withPrefix url: [String]) -> Bool {
            guard !url.isEmpty else { return count > 0 }
            var cost = 0
            return !survivors(url, wholeURL: false, cost: &cost).isEmpty
        }

        /// The slots of the routes that match every component of the URL (and its end, for a whole URL); for a
        /// prefix, any one such slot is enough and at most one is returned.
        private func survivors(_ url: [String], wholeURL: Bool, cost: inout Int) -> [Int] {
            let length = url.count
            let limit = min(length, columns.count)
            // The requirement that allows the fewest routes, found with one probe per position (stopping at one
            // that allows so few that comparing them with the URL is cheaper than probing on).
            var narrowest = Requirement(position: nil, wildcardsThrough: -1, size: .max)
            var wildcardCount = 0
            for position in 0..<limit {
                cost += 1
                wildcardCount += columns[position].wildcards.count
                let literal = columns[position].literals.isEmpty ? nil : columns[position].literals[url[position]]
                let size = (literal?.count ?? 0) + columns[position].parameters.count + wildcardCount
                if size < narrowest.size {
                    narrowest = Requirement(
                        position: position, literal: literal, wildcardsThrough: position, size: size)
                    if size == 0 { return [] }
                    if size <= Self.fewCandidates { break }
                }
            }
            // The end: a whole URL needs a route that ends here or a `~` at or before here; a prefix longer than
            // every pattern needs a `~`.
            let end: Requirement?
            if narrowest.size <= Self.fewCandidates {
                end = nil
            } else if wholeURL && length < columns.count {
                end = Requirement(
                    position: nil, wildcardsThrough: length,
                    size: columns[length].ends.count + wildcardCount + columns[length].wildcards.count)
            } else if wholeURL || length > columns.count {
                end = Requirement(position: nil, wildcardsThrough: columns.count - 1, size: wildcardCount)
            } else {
                end = nil
            }
            if let end {
                cost += 1
                if end.size < narrowest.size { narrowest = end }
                if end.size == 0 { return [] }
            }

            if narrowest.size <= 4 * words {
                var found: [Int] = []
                forEachSlot(allowedBy: narrowest, in: url) { slot in
                    if matches(routes[slot]!, url, wholeURL: wholeURL, cost: &cost) { found.append(slot) }
                    return wholeURL || found.isEmpty
                }
                return found
            }
            return intersect(url, limit: limit, end: end, wholeURL: wholeURL, cost: &cost)
        }

        /// Calls `body` with each slot a requirement allows, until it returns `false`.
        private func forEachSlot(allowedBy requirement: Requirement, in url: [String], _ body: (Int) -> Bool) {
            var proceed = true
            func visit(_ set: SlotSet) { if proceed { set.forEach { slot in proceed = proceed && body(slot) } } }
            if let position = requirement.position {
                if let literal = requirement.literal { visit(literal) }
                visit(columns[position].parameters)
            } else if requirement.wildcardsThrough == url.count {
                visit(columns[url.count].ends)
            }
            for position in 0..<(requirement.wildcardsThrough + 1) { visit(columns[position].wildcards) }
        }

        /// Compares one route with the URL, component by component.
        private func matches(_ route: Route, _ url: [String], wholeURL: Bool, cost: inout Int) -> Bool {
            cost += 1
            let compared: Int
            if wholeURL {
                guard route.hasWildcard ? route.extent <= url.count : route.extent == url.count else { return false }
                compared = route.extent
            } else {
                guard route.hasWildcard || route.extent >= url.count else { return false }
                compared = min(route.extent, url.count)
            }
            for position in 0..<compared {
                cost += 1
                if case .literal(let text) = route.pattern.segments[position], text != url[position] { return false }
            }
            return true
        }

        /// The routes every requirement allows, as bit sets of `words` 64-bit words intersected position by
        /// position.
        private func intersect(
            _ url: [String], limit: Int, end: Requirement?, wholeURL: Bool, cost: inout Int
        ) -> [Int] {
            let words = words
            var alive = [UInt64](repeating: ~0, count: words)
            var wildcards = [UInt64](repeating: 0, count: words)
            var allowed = [UInt64](repeating: 0, count: words)
            func narrow() -> Bool {
                cost += words
                var any: UInt64 = 0
                for word in 0..<words {
                    alive[word] &= allowed[word]
                    any |= alive[word]
                }
                return any != 0
            }
            for position in 0..<limit {
                columns[position].wildcards.add(to: &wildcards)
                for word in 0..<words { allowed[word] = wildcards[word] }
                columns[position].parameters.add(to: &allowed)
                columns[position].literals[url[position]]?.add(to: &allowed)
                guard narrow() else { return [] }
            }
            if let end {
                if end.wildcardsThrough == url.count { columns[url.count].wildcards.add(to: &wildcards) }
                for word in 0..<words { allowed[word] = wildcards[word] }
                if wholeURL && url.count < columns.count { columns[url.count].ends.add(to: &allowed) }
                guard narrow() else { return [] }
            }
            var found: [Int] = []
            for word in 0..<words {
                var bits = alive[word]
                while bits != 0 {
                    found.append(word * 64 + bits.trailingZeroBitCount)
                    if !wholeURL { return found }
                    bits &= bits - 1
                }
            }
            return found
        }
    }
}

// MARK: - Sets of slots

/// A set of route slots: a sorted array while small, a bit set while it has at least as many members as the bit set
/// has words. So adding a set to a bit set of all `R` routes costs at most `⌈R/64⌉` operations either way, and a
/// bit set never takes more than 8 bytes per member.
struct SlotSet: Sendable {
    private var sorted: [Int] = []
    private var bits: [UInt64]?
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Adds a slot that is not a member.
    ///
    /// - Parameter threshold: The number of words of a bit set of all routes; a sorted array that reaches it
    ///   becomes a bit set.
    mutating func insert(_ slot: Int, denseFrom threshold: Int) {
        count += 1
        let word = slot >> 6
        if bits != nil, word >= bits!.count, count < word + 1 {
            sorted = members
            bits = nil
        }
        if bits != nil {
            while bits!.count <= word { bits!.append(0) }
            bits![word] |= 1 << UInt64(slot & 63)
            return
        }
        sorted.insert(slot, at: insertionIndex(of: slot))
        if sorted.count >= threshold, sorted.count >= sorted.last! / 64 + 1 {
            var dense = [UInt64](repeating: 0, count: sorted.last! / 64 + 1)
            for member in sorted { dense[member >> 6] |= 1 << UInt64(member & 63) }
            bits = dense
            sorted = []
        }
    }

    /// Removes a slot if it is a member.
    mutating func remove(_ slot: Int) {
        if bits != nil {
            let word = slot >> 6
            guard word < bits!.count, bits![word] & (1 << UInt64(slot & 63)) != 0 else { return }
            bits![word] &= ~(1 << UInt64(slot & 63))
            count -= 1
            if count < bits!.count / 2 {
                sorted = members
                bits = nil
            }
        } else {
            let index = insertionIndex(of: slot)
            guard index < sorted.count, sorted[index] == slot else { return }
            sorted.remove(at: index)
            count -= 1
        }
    }

    /// The members, in increasing order.
    var members: [Int] {
        guard bits != nil else { return sorted }
        var result: [Int] = []
        result.reserveCapacity(count)
        forEach { result.append($0) }
        return result
    }

    /// Calls `body` with each member, in increasing order.
    func forEach(_ body: (Int) -> Void) {
        guard let bits else {
            sorted.forEach(body)
            return
        }
        for (word, value) in bits.enumerated() {
            var rest = value
            while rest != 0 {
                body(word * 64 + rest.trailingZeroBitCount)
                rest &= rest - 1
            }
        }
    }

    /// Sets the members' bits in a bit set of all slots.
    func add(to words: inout [UInt64]) {
        if let bits {
            for (word, value) in bits.enumerated() { words[word] |= value }
        } else {
            for member in sorted { words[member >> 6] |= 1 << UInt64(member & 63) }
        }
    }

    private func insertionIndex(of slot: Int) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < slot { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension RoutePattern {
    /// The pattern with parameter names erased, and a `~` in the middle taken as a parameter: two patterns with the
    /// same shape match the same URLs.
    fileprivate var shape: RoutePattern {
        RoutePattern(
            scheme: scheme,
            segments: segments.map { segment in
                switch segment {
                case .parameter, .anyComponent: .parameter("")
                case .literal, .wildcard: segment
                }
            })
    }
}

extension RoutePattern.Segment {
    /// Whether the segment is a `~` in the middle (any one component), for messages about duplicates.
    fileprivate var isOneComponent: Bool { self == .anyComponent }
}
