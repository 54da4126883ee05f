internal import _BeeHiveRuntime

/// Which way a name is bound to a type, or a type to an existential.
package enum BindingPath: Sendable, Hashable {
    /// Read from the loaded images' Swift metadata (`_BeeHiveRuntime`): one walk per module, checked pointers.
    case metadata
    /// The Swift runtime's own look-ups: `_typeByName` and `as?` casts (each a scan of the process's records).
    case runtime
}

/// A loaded image as the binding sees it: named by its lowest address.
enum RuntimeImage {
    /// What a walk found wrong with an image.
    struct Problem: Sendable, Hashable {
        /// The image's lowest address.
        let image: UInt
        /// Whether the image's metadata is corrupt (nothing of it is used), rather than of an unknown version (the
        /// runtime's path serves it).
        let isCorrupt: Bool
        let message: String
    }

    /// What a walk of the C target hands back through its context.
    ///
    /// Used by one walk on one thread: its appends need no exclusivity check (~115 instructions each, thousands per
    /// walk).
    final class Collector {
        @exclusivity(unchecked) var problems: [Problem] = []
    }

    /// The problem callback of the walks: appends to the context's ``Collector``.
    static let collect: bh_runtime_problem_fn = { context, problem in
        guard let context, let problem = problem?.pointee else { return }
        Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().problems.append(
            Problem(
                image: UInt(bitPattern: problem.image), isCorrupt: problem.kind == BH_RUNTIME_CORRUPT,
                message: problem.message.map { String(cString: $0) } ?? "no reason given"))
    }

    /// The path of the loaded image that holds `address`.
    static func path(of address: UnsafeRawPointer) -> String? { bh_image_path(address).map { String(cString: $0) } }
}

/// The binding's self-check, its switch and its bookkeeping: which images are bound from their metadata, which by the
/// runtime's path, and what each path answered.
///
/// The first binding of each image (a type by name, a conformance) is compared with the runtime's own answer (for the
/// conformances of the image that holds BeeHive, with the compiler's, ``ConformanceAnchor``); an image whose answer
/// differs, or whose metadata is of a version BeeHive does not know, is served by the runtime's path from then on, with
/// one warning. An image whose metadata is corrupt (a pointer outside its readable segments) is not read at all, with
/// one error. Either diagnostic is recorded once per image, in the hive that asked.
package enum RuntimeBinding {
    /// How the binding treats one image.
    package enum ImageState: Sendable, Hashable {
        /// Its first binding agreed with the runtime's answer.
        case agreed
        /// Served by the runtime's path: its first binding disagreed, or its metadata is of an unknown version.
        case runtime
        /// Not read: its metadata is corrupt.
        case corrupt
    }

    /// How many bindings each path gave, and what the self-check found; for tests and diagnosis.
    package struct Statistics: Sendable, Equatable {
        package var metadataTypes = 0
        package var runtimeTypes = 0
        package var metadataConformances = 0
        package var runtimeConformances = 0
        package var selfChecks = 0
        /// Conformance self-checks made against BeeHive's own conformance that the compiler resolved, not the cast: of
        /// the one image that holds BeeHive, counted once however many threads made their first check at once.
        package var compilerChecks = 0
        /// Type self-checks made against BeeHive's own type that the compiler resolved (``ConformanceAnchor``), not the
        /// runtime's name of the type bound: of the one image that holds BeeHive, counted once likewise.
        package var compilerTypeChecks = 0
        package var disagreements = 0

    }

    /// What a self-check compares: types and conformances are checked apart, each on its first binding in an image.
    package enum Check: UInt, Sendable {
        case type = 0
        case conformance = 1
    }

    private struct State {
        /// By the image's lowest address (page-aligned, so its low bit is free): the image's state; with the low bit
        /// set, the outcome of its conformance self-check.
        var images = ImageStates()
        var pending: [Diagnostic] = []
        /// Every diagnostic made, delivered or not (at most two per image).
        var made: [Diagnostic] = []
        var statistics = Statistics()
        /// The checks (``Check``, as bits) that ``Statistics/compilerChecks`` or ``Statistics/compilerTypeChecks``
        /// counted.
        var compilerChecked: UInt = 0
    }

    /// Image states by address, in an ``AddressTable``: a `Dictionary` keyed by `UInt` makes the runtime scan every
    /// conformance record for `UInt: Hashable` when it is first made, at the first binding by name.
    private struct ImageStates {
        private var table = AddressTable<(image: UInt, state: ImageState)>()

        subscript(image: UInt) -> ImageState? {
            get { table[key: image]?.state }
            set { table[key: image] = newValue.map { (image, $0) } }
        }

        /// Every image and its state, in no particular order.
        var entries: [(image: UInt, state: ImageState)] {
            var entries: [(image: UInt, state: ImageState)] = []
            table.forEach { entries.append($0) }
            return entries
        }

        /// The images in `state`, in an array allocated only when some image is in that state: an array of every
        /// entry made the runtime instantiate its storage type's metadata at the first binding by name (~19 K
        /// instructions).
        func images(in state: ImageState) -> [UInt] {
            var images: [UInt] = []
            table.forEach { entry in if entry.state == state { images.append(entry.image) } }
            return images
        }
    }

    private static let state = LockedValue(State())
    /// Whether diagnostics wait in `state` to be recorded: what lets ``deliver(to:)`` cost one atomic load when none
    /// do.
    private static let hasPending = PublishedFlag()
    /// The image (its key in `state`: its lowest address, the low bit set for conformances) whose self-check agreed
    /// last, one per check: its next bindings are counted without the lock (one image's are asked one after another),
    /// until an image's state changes. 0 for none.
    private static let lastAgreed = (type: RelaxedWord(), conformance: RelaxedWord())
    /// The bindings the metadata path made, counted without the lock.
    private static let metadataCounts = (type: RelaxedWord(), conformance: RelaxedWord())

    private static func lastAgreed(_ check: Check) -> RelaxedWord {
        check == .type ? lastAgreed.type : lastAgreed.conformance
    }

    private static func countMetadata(_ check: Check) {
        _ = (check == .type ? metadataCounts.type : metadataCounts.conformance).next()
    }

    /// The path the environment asks for: `BEEHIVE_RUNTIME_BINDING=runtime` turns the metadata path off.
    package static let environmentPath: BindingPath =
        EnvironmentVariable.runtimeBinding.value == "runtime" ? .runtime : .metadata

    /// Every diagnostic the binding made about an image, whichever hive it was recorded in.
    package static var diagnostics: [Diagnostic] { state.withLock { $0.made } }

    /// The counters so far.
    package static var statistics: Statistics {
        var statistics = state.withLock { $0.statistics }
        statistics.metadataTypes = Int(metadataCounts.type.value)
        statistics.metadataConformances = Int(metadataCounts.conformance.value)
        return statistics
    }

    /// How the binding treats the image at `image` (its lowest address) for `check`; nil before its first binding.
    package static func state(ofImage image: UnsafeRawPointer, _ check: Check = .type) -> ImageState? {
        state.withLock { $0.images[UInt(bitPattern: image) | check.rawValue] }
    }

    /// The images and their states, for tests: by the image's path.
    package static var imageStates: [String: ImageState] {
        let images = state.withLock { $0.images.entries }
        var byPath: [String: ImageState] = [:]
        for (image, state) in images where image & 1 == 0 {
            let path = UnsafeRawPointer(bitPattern: image).flatMap(RuntimeImage.path(of:)) ?? "\(image)"
            byPath[path] = state
        }
        return byPath
    }

    /// Counts a binding the runtime's path made (the metadata path's are counted by ``selfCheck(image:_:what:_:)``).
    static func countRuntime(_ check: Check) {
        state.withLock {
            if check == .type { $0.statistics.runtimeTypes += 1 } else { $0.statistics.runtimeConformances += 1 }
        }
    }

    /// Counts the self-check of `check` made against what the compiler resolved, in the image that holds BeeHive: once
    /// (threads that bind their first type of the image at once each make the check).
    static func countCompilerCheck(_ check: Check) {
        state.withLock {
            let bit: UInt = 1 << check.rawValue
            guard $0.compilerChecked & bit == 0 else { return }
            $0.compilerChecked |= bit
            if check == .type { $0.statistics.compilerTypeChecks += 1 } else { $0.statistics.compilerChecks += 1 }
        }
    }

    /// Notes what a walk found wrong: each image gets its state and one diagnostic, the first time.
    static func note(_ problems: [RuntimeImage.Problem]) {
        guard !problems.isEmpty else { return }
        var diagnostics: [Diagnostic] = []
        for problem in problems {
            let path = UnsafeRawPointer(bitPattern: problem.image).flatMap(RuntimeImage.path(of:)) ?? "an image"
            let new: ImageState = problem.isCorrupt ? .corrupt : .runtime
            let first = state.withLock { state -> Bool in
                guard state.images[problem.image] != new else { return false }
                state.images[problem.image] = new
                if lastAgreed.type.value == UInt64(problem.image) { lastAgreed.type.store(0) }
                if lastAgreed.conformance.value & ~1 == UInt64(problem.image) { lastAgreed.conformance.store(0) }
                return true
            }
            guard first else { continue }
            diagnostics.append(
                problem.isCorrupt
                    ? Diagnostic(
                        .error,
                        HiveError(
                            .unreadableImage,
                            "expected the Swift metadata of \(path) to lie inside its readable segments; found "
                                + "\(problem.message). Its types and conformances are not bound by name",
                            source: .image(path)))
                    : Diagnostic(
                        .warning,
                        HiveError(
                            .unreadableImage,
                            "expected Swift metadata that BeeHive can read in \(path); \(problem.message). Its types "
                                + "are bound by the Swift runtime's look-ups instead", source: .image(path))))
        }
        if !diagnostics.isEmpty {
            state.withLock {
                $0.pending += diagnostics
                $0.made += diagnostics
            }
            hasPending.set(true)
        }
    }

    /// The state of the image at `image` for a binding about to be made there: `.runtime` and `.corrupt` images are
    /// not bound from their metadata (for conformances, nor an image whose conformance self-check disagreed).
    static func imageState(_ image: UnsafeRawPointer?, _ check: Check = .type) -> ImageState? {
        guard let image else { return nil }
        let key = UInt(bitPattern: image)
        if check == .type && lastAgreed.type.value == UInt64(key) { return .agreed }
        return state.withLock { state in
            let whole = state.images[key]
            guard check == .conformance, whole == nil || whole == .agreed else { return whole }
            return state.images[key | check.rawValue] == .runtime ? .runtime : whole
        }
    }

    /// The images whose metadata is corrupt, by their lowest address.
    static var corruptImages: [UInt] {
        state.withLock { state in state.images.images(in: .corrupt) }
    }

    /// Compares the first binding of `image` with the runtime's own answer: `agrees` is called once per image (outside
    /// every lock). Returns whether the metadata path may answer for the image (and then counts the binding as the
    /// metadata path's): not for an image that disagreed, is corrupt or of an unknown version.
    static func selfCheck(
        image: UnsafeRawPointer?, _ check: Check = .type, what: @autoclosure () -> String, _ agrees: () -> Bool
    ) -> Bool {
        guard let image else { return true }
        let key = UInt(bitPattern: image) | check.rawValue
        if lastAgreed(check).value == UInt64(key) {
            countMetadata(check)
            return true
        }
        switch state.withLock({ state in
            let whole = state.images[key & ~1]
            let known = whole == .corrupt || whole == .runtime ? .runtime : state.images[key]
            if known == .agreed { lastAgreed(check).store(UInt64(key)) }
            return known
        }) {
        case .agreed?:
            countMetadata(check)
            return true
        case .runtime?, .corrupt?: return false
        case nil: break
        }
        let agreed = agrees()
        let first = state.withLock { state -> Bool in
            guard state.images[key] == nil else { return false }
            state.images[key] = agreed ? .agreed : .runtime
            state.statistics.selfChecks += 1
            if agreed { lastAgreed(check).store(UInt64(key)) } else { state.statistics.disagreements += 1 }
            return true
        }
        if first && agreed { countMetadata(check) }
        if first && !agreed {
            let path = RuntimeImage.path(of: image) ?? "an image"
            let diagnostic = Diagnostic(
                .warning,
                HiveError(
                    .unreadableImage,
                    "expected BeeHive's reading of the Swift metadata of \(path) to agree with the Swift runtime; "
                        + "for \(what()) it does not. The image's types are bound by the runtime's look-ups instead",
                    source: .image(path)))
            state.withLock {
                $0.pending.append(diagnostic)
                $0.made.append(diagnostic)
            }
            hasPending.set(true)
        }
        return agreed || state.withLock { $0.images[key] == .agreed }
    }

    /// Records the diagnostics not yet recorded in `hive` (or the shared hive, once it exists).
    static func deliver(to hive: Hive?) {
        guard hasPending.isSet, let hive = hive ?? Hive.sharedIfCreated else { return }
        let pending = state.withLock { state -> [Diagnostic] in
            defer { state.pending = [] }
            hasPending.set(false)
            return state.pending
        }
        if !pending.isEmpty { hive.record(pending) }
    }
}

extension Hive {
    /// The path this hive binds names by: its option, else the environment's.
    package var bindingPath: BindingPath {
        options.bindsNamesFromMetadata.map { $0 ? .metadata : .runtime } ?? RuntimeBinding.environmentPath
    }

    /// The path of code that binds names for no particular hive (modules, routes): the shared hive's, when it exists.
    package static var defaultBindingPath: BindingPath {
        sharedIfCreated?.bindingPath ?? RuntimeBinding.environmentPath
    }
}
