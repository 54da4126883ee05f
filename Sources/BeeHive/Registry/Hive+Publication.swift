extension Hive {
    /// How many duplicates of one service or module a batch reports one by one; the rest get one diagnostic
    /// that counts them.
    package static let listedDuplicatesPerKey = 10

    /// Adds registrations; returns the duplicates found.
    ///
    /// The batch is published under the lock in one short step, no message built: each service offered to the
    /// registry once (O(1) each, a duplicate too), each module once per name and origin (grouped by name outside the
    /// lock). The duplicates' diagnostics are built after the lock is released: the first ``listedDuplicatesPerKey``
    /// of each key one by one, then one that counts the rest and names the last.
    func add(
        services: [ServiceEntry], modules: [ModuleDeclaration] = [], routes: [RouteDeclaration] = []
    ) -> [Diagnostic] {
        // A rescan with nothing new publishes nothing: no batch, no lock, no span.
        guard !services.isEmpty || !modules.isEmpty || !routes.isEmpty else { return [] }
        let telemetry = telemetry
        telemetry.count("beehive.registrations", [("kind", "service")], by: services.count)
        telemetry.count("beehive.registrations", [("kind", "module")], by: modules.count)
        telemetry.count("beehive.registrations", [("kind", "route")], by: routes.count)
        return timeline.span("register", category: "registration") { arguments in
            let duplicates = addBatch(services: services, modules: modules, routes: routes)
            if arguments.isRecording {
                arguments["services"] = .integer(services.count)
                arguments["modules"] = .integer(modules.count)
                arguments["routes"] = .integer(routes.count)
                arguments["duplicates"] = .integer(duplicates.count)
                if services.count == 1 { arguments["service"] = .string(services[0].registration.displayName) }
            }
            return duplicates
        }
    }

    /// ``add(services:modules:routes:)`` without its span, for a batch that is not empty.
    ///
    /// Services are offered to the registry one by one under the lock, each hashed once: a duplicate of the same
    /// origin costs the registry an O(1) refusal, as grouping them first would cost. Only the entries that lost are
    /// looked at again, for their diagnostics.
    private func addBatch(
        services: [ServiceEntry], modules: [ModuleDeclaration], routes: [RouteDeclaration]
    ) -> [Diagnostic] {
        let moduleBatch = Batch(modules) { $0.name }
        let (losers, moduleHolders, released) = state.withLock { state in
            state.reserve(services.count)
            var lost: [Int] = []
            for (index, entry) in services.enumerated() where state.add(entry) !== entry { lost.append(index) }
            // What holds each loser's key once the whole batch is in: a later entry may have outranked its winner.
            let losers = lost.map { (index: $0, holder: state.entry(for: services[$0].registration.key)!) }
            let moduleHolders = moduleBatch.publish(modules, as: { $0 }) { state.add($0) }
            state.add(routes: routes)
            return (losers, moduleHolders, state.takeReleased())
        }
        _ = released  // released here, outside the lock: a deinit is user code
        let severity = duplicateSeverity
        var duplicates: [Diagnostic] = []
        // Registrations of a lower rank than the one serving are alternatives, not duplicates. Each key's first
        // ``listedDuplicatesPerKey`` are listed one by one, in the batch's order; then one diagnostic per key counts
        // the rest and names the last.
        var seen: [ObjectIdentifier: Int] = [:]  // by holder, which is one per key
        var overflow: [(holder: ServiceEntry, count: Int, last: Int)] = []
        var overflowPosition: [ObjectIdentifier: Int] = [:]
        for (index, holder) in losers where services[index].registration.rank == holder.registration.rank {
            let key = ObjectIdentifier(holder)
            seen[key, default: 0] += 1
            if seen[key]! <= Self.listedDuplicatesPerKey {
                let registration = services[index].registration
                duplicates.append(Diagnostic(severity, .duplicate(registration, of: holder.registration)))
            } else if let position = overflowPosition[key] {
                overflow[position].count += 1
                overflow[position].last = index
            } else {
                overflowPosition[key] = overflow.count
                overflow.append((holder, 1, index))
            }
        }
        for (holder, count, last) in overflow {
            let registration = services[last].registration
            let kept = holder.registration
            duplicates.append(
                Diagnostic(
                    severity,
                    HiveError(
                        .duplicateRegistration,
                        "expected one implementation of \(registration.displayName); found \(count) more "
                            + "registrations of it after the \(Self.listedDuplicatesPerKey) listed, not listed one by "
                            + "one (the last is \(registration.implementation) here); \(kept.implementation) "
                            + "registered by \(kept.source) is kept", source: registration.source)))
        }
        moduleBatch.forEachLoser(holders: moduleHolders, rank: { _ in 0 }) { loser, holder in
            let module = modules[loser]
            duplicates.append(
                Diagnostic(
                    severity,
                    HiveError(
                        .duplicateRegistration,
                        "expected module \(module.name) to be declared once; it was declared before by "
                            + "\(holder.source), which is kept", source: module.source)))
        } unlisted: { count, last, holder in
            let module = modules[last]
            duplicates.append(
                Diagnostic(
                    severity,
                    HiveError(
                        .duplicateRegistration,
                        "expected module \(module.name) to be declared once; found \(count) more declarations of it "
                            + "after the \(Self.listedDuplicatesPerKey) listed, not listed one by one (the last is "
                            + "here); the one declared by \(holder.source) is kept", source: module.source)))
        }
        return duplicates
    }
}

/// A batch of module declarations grouped by name, outside any lock: for each key (in order of first appearance), the
/// entries to offer the registry (the first of each origin, and any that outranks those before it) and the others
/// (which can never hold the key).
///
/// A key seen once costs two array slots (`first`, `keyIndex`), a `KeyStart` slot and a table entry (a batch of one
/// entry needs neither of the last two); only keys seen again get a set of origins and a list of candidates.
private struct Batch<Key: TableKey> {
    /// For each key, in order of first appearance, the index of its first entry. (The keys themselves are not kept:
    /// an array of them would make the runtime build its type the first time, for a count.)
    private var first: [Int] = []
    /// For keys with entries of several origins, the first entry of each origin after the first one.
    private var more: [Int: [Int]] = [:]
    /// For each entry, the position of its key (in `first`).
    private var keyIndex: [Int] = []

    /// The number of distinct keys.
    var keyCount: Int { first.count }

    init<Element: HasRegistrationSource>(_ elements: [Element], key: (Element) -> Key) {
        // Keys by position; a batch of one entry (a registration in code) needs none, its key cannot repeat.
        let probes = elements.count > 1
        var position = KeyedTable<Key, Int>()
        if probes { position.reserveCapacity(elements.count) }
        // By position, what the key's first entry brought. (In slots: an array of it, or of origins, would make the
        // runtime build its storage type from a mangled name, ~10 K instructions the first time.)
        var starts = Slots<KeyStart>(count: probes ? elements.count : 0)
        var origins: [Int: Set<RegistrationOrigin>] = [:]
        keyIndex.reserveCapacity(elements.count)
        if probes { first.reserveCapacity(elements.count) }
        for (index, element) in elements.enumerated() {
            let origin = RegistrationOrigin(element.registrationSource)
            let rank = element.registrationRank
            // One probe: the key's position, or the next one, inserted.
            let next = first.count
            var known = next
            if probes { position.modify(key(element), initial: next) { known = $0 } }
            if known != next {
                let start = starts[known]!
                keyIndex.append(known)
                if rank > start.bestRank {
                    starts[known]!.bestRank = rank
                    more[known, default: []].append(index)
                    continue
                }
                guard origin != start.origin else { continue }
                if origins[known, default: [start.origin]].insert(origin).inserted {
                    more[known, default: []].append(index)
                }
            } else {
                if probes { starts[next] = KeyStart(origin: origin, bestRank: rank) }
                keyIndex.append(next)
                first.append(index)
            }
        }
    }

    /// Offers the batch to the registry through `add`, which returns what holds an entry's key after the call, or nil
    /// when the entry does: for each key its first entry, then the others that could hold it (the first of each
    /// other origin, and those that outrank the entries before them).
    /// - Returns: What holds each key afterwards, by the key's position.
    func publish<Element, Value>(
        _ elements: [Element], as value: (Element) -> Value, add: (Element) -> Value?
    ) -> Slots<Holder<Value>> {
        var holders = Slots<Holder<Value>>(count: keyCount)
        for position in first.indices {
            let element = elements[first[position]]
            var holder = add(element).map { Holder($0, index: nil) } ?? Holder(value(element), index: first[position])
            for index in more[position] ?? [] where add(elements[index]) == nil {
                holder = Holder(value(elements[index]), index: index)
            }
            holders[position] = holder
        }
        return holders
    }

    /// Calls `listed` for each entry that does not hold its key and has the holder's rank (in entry order), the
    /// first ``Hive/listedDuplicatesPerKey`` of each key; then `unlisted` once per key with more, with their count
    /// and the last one. Linear in the batch.
    func forEachLoser<Value: HasRegistrationRank>(
        holders: Slots<Holder<Value>>, rank: (Int) -> Int, listed: (Int, Value) -> Void,
        unlisted: (Int, Int, Value) -> Void
    ) {
        var seen = [Int](repeating: 0, count: keyCount)
        var last = [Int](repeating: -1, count: keyCount)
        for (index, position) in keyIndex.enumerated() {
            let holder = holders[position]!
            // The holder itself, and the alternatives it outranks, are no duplicates.
            if index == holder.index || rank(index) != holder.value.registrationRank { continue }
            seen[position] += 1
            if seen[position] <= Hive.listedDuplicatesPerKey {
                listed(index, holder.value)
            } else {
                last[position] = index
            }
        }
        for position in first.indices where seen[position] > Hive.listedDuplicatesPerKey {
            unlisted(seen[position] - Hive.listedDuplicatesPerKey, last[position], holders[position]!.value)
        }
    }
}

/// What the first entry of a key in a batch brought: its origin, and the highest rank of the key's entries so far.
private struct KeyStart {
    let origin: RegistrationOrigin
    var bestRank: Int
}

/// What holds a key after a batch was published, and, when it is one of the batch's entries, its index. (Kept in
/// ``Slots``: an array of it would make the runtime build its storage type from a mangled name, per value type.)
private struct Holder<Value> {
    let value: Value
    let index: Int?

    init(_ value: Value, index: Int?) {
        self.value = value
        self.index = index
    }
}

/// Something registered with a rank: a service registration, an entry, a module declaration (always 0).
protocol HasRegistrationRank {
    var registrationRank: Int { get }
}

/// Something registered from a source: a service entry or a module declaration.
protocol HasRegistrationSource: HasRegistrationRank {
    var registrationSource: RegistrationSource { get }
}

extension ModuleDeclaration: HasRegistrationSource {
    var registrationSource: RegistrationSource { source }
    var registrationRank: Int { 0 }
}
