/// Picks the names closest to a misspelt one, for "did you mean" hints.
package enum ClosestNames {
    /// Up to `limit` names of `candidates` within a small edit distance of `name` (a quarter of its length, at
    /// least 2) and at most one edit further than the closest, closest first; names that differ only in case come
    /// first of all.
    package static func closest(to name: String, among candidates: Set<String>, limit: Int = 3) -> [String] {
        let target = Array(name.utf8)
        let budget = max(2, target.count / 4)
        var scored: [(distance: Int, name: String)] = []
        for candidate in candidates {
            let bytes = Array(candidate.utf8)
            guard abs(bytes.count - target.count) <= budget else { continue }
            let distance = candidate.lowercased() == name.lowercased() ? 0 : editDistance(target, bytes)
            if distance <= budget { scored.append((distance, candidate)) }
        }
        let sorted = scored.sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }
        guard let best = sorted.first?.distance else { return [] }
        // Only the names about as close as the closest: a typo has one likely intent, not a list of neighbours.
        return sorted.prefix { $0.distance <= best + 1 }.prefix(limit).map(\.name)
    }

    /// Up to `limit` service names of `candidates` that a request for `name` (module-qualified, `Shop.PriceService`)
    /// could have meant: the same type name in another module, or a type name within a small edit distance (a
    /// quarter of the type name's length, at least 1) in any module. The module's name does not count towards the
    /// distance: `Shop.StockService` is not offered for `Shop.PriceService`.
    package static func closestServices(to name: String, among candidates: Set<String>, limit: Int = 3) -> [String] {
        let target = Array(unqualified(name).utf8)
        let budget = max(1, target.count / 4)
        var scored: [(distance: Int, name: String)] = []
        for candidate in candidates where candidate != name {
            let bytes = Array(unqualified(candidate).utf8)
            guard abs(bytes.count - target.count) <= budget else { continue }
            let distance = bytes == target ? 0 : editDistance(target, bytes)
            if distance <= budget { scored.append((distance, candidate)) }
        }
        let sorted = scored.sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }
        guard let best = sorted.first?.distance else { return [] }
        return sorted.prefix { $0.distance <= best }.prefix(limit).map(\.name)
    }

    /// A qualified name without its module: `PriceService` for `Shop.PriceService`.
    private static func unqualified(_ name: String) -> Substring {
        guard let dot = name.firstIndex(of: ".") else { return name[...] }
        return name[name.index(after: dot)...]
    }

    /// The number of byte insertions, deletions and substitutions that turn `a` into `b`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            current[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }

    /// " Did you mean `A` or `B`?", or "" when there is nothing to suggest.
    package static func hint(_ names: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let quoted = names.map { "`\($0)`" }
        let list = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        return " Did you mean \(list)?"
    }
}
