@_spi(Testing) internal import _BeeHiveDiscovery
internal import _BeeHiveScanner

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Hive {
    /// The hive's plugins: shared libraries loaded, retired and upgraded while the program runs.
    ///
    /// ```swift
    /// let plugin = try Hive.shared.plugins.load(path: "/opt/app/plugins/libGreeter.so")
    /// let v2 = try Hive.shared.plugins.upgrade(plugin, to: "/opt/app/plugins/libGreeter.so")  // a new build
    /// try v2.retire()
    /// ```
    public var plugins: Plugins { Plugins(hive: self) }

    /// How a plugin file is loaded.
    public struct PluginLoadOptions: Sendable, Hashable {
        /// Refuse a file, or a directory above it, that a user other than its owner and root may write (group- or
        /// world-writable, or owned by another user): whoever can write it can run code in the process. Off by
        /// default; a directory with the sticky bit (`/tmp`) is accepted as a parent.
        public var requiresTrustedFiles: Bool
        /// Refuse a plugin whose records have problems (a malformed record, an unknown format version, an unreadable
        /// image): it then registers nothing. On by default; off, the plugin registers what can be read.
        public var refusesOnProblems: Bool
        /// Where the private copy of the file that the loader maps is made (see ``Plugin/mappedPath``); nil for
        /// this process's own directory in `$TMPDIR` (`beehive-plugins-PID-XXXXXX`, removed at a normal exit). A
        /// copy's name is removed as soon as it is mapped, or refused. The plugin's own folder is never written.
        public var copyDirectory: String?
        /// How long an upgrade waits for the `removing` handlers of the old version's services, and then for its
        /// leases to end (`withService(_:)`), before it fails with `pluginBusy`.
        public var drainTimeout: Duration

        /// Options.
        /// - Parameters:
        ///   - requiresTrustedFiles: Refuse files or directories writable by others than their owner or root.
        ///   - refusesOnProblems: Refuse a plugin any of whose records cannot be registered.
        ///   - copyDirectory: Where private copies are made; nil for a directory of this process in `$TMPDIR`.
        ///   - drainTimeout: How long an upgrade waits for the old version's `removing` handlers, then its leases.
        public init(
            requiresTrustedFiles: Bool = false, refusesOnProblems: Bool = true, copyDirectory: String? = nil,
            drainTimeout: Duration = .seconds(10)
        ) {
            self.requiresTrustedFiles = requiresTrustedFiles
            self.refusesOnProblems = refusesOnProblems
            self.copyDirectory = copyDirectory
            self.drainTimeout = drainTimeout
        }
    }

    /// Loads, retires and upgrades the plugins of one hive (``Hive/plugins``).
    ///
    /// A plugin is a shared library whose annotation records (C or Swift macros) declare services, modules and
    /// routes. Loading it registers them; retiring it withdraws them and releases the shared instances BeeHive made of
    /// its services; upgrading replaces its registrations by a new file's in one step, so that a resolve or a route
    /// opened meanwhile gets the old version or the new one, never "not found", never a mix.
    public struct Plugins: Sendable {
        /// The hive the plugins join.
        public let hive: Hive

        /// The active plugins, in the order they joined.
        public var active: [Plugin] { hive.pluginTable.active }

        /// Loads the shared library at `path` and registers what its records declare, as one step.
        ///
        /// The file is checked before anything is copied or loaded: it must be a shared library for this machine,
        /// not one the process has loaded already (the main program, a library the host links such as the
        /// protocols' package, the same file or build-id elsewhere), and declare records; and the options' checks
        /// (see ``PluginLoadOptions``). A refused or failed call changes nothing later calls accept. The file is then
        /// loaded from a private copy (``Plugin/mappedPath``, removed once mapped): the file itself can be replaced
        /// or rewritten in place at once, and a new build at the same path is a new image. An image of Swift code is
        /// pinned: it stays mapped for the life of the process.
        /// - Parameters:
        ///   - path: The plugin's file.
        ///   - options: Checks made before it joins.
        /// - Returns: The plugin, active.
        /// - Throws: ``PluginError`` with code `fileNotFound`, `untrustedFile`, `notASharedLibrary`, `alreadyLoaded`,
        ///   `noRecords`, `notLoadable`, `secondBeeHive`, `refused` or `notScanning`; a refused plugin registered
        ///   nothing.
        public func load(path: String, options: PluginLoadOptions = PluginLoadOptions()) throws(PluginError) -> Plugin {
            try hive.loadPlugin(path: path, options: options, replacing: nil)
        }

        /// Replaces `plugin` by the shared library at `path` (a new build, at the same path or another): the new
        /// file's registrations replace the old one's in one step, then the old plugin is retired.
        ///
        /// A resolve or a route opened during the upgrade gets the old version or the new one, never "not found";
        /// once this returns, only the new one. When the new file cannot be loaded or is refused, the old plugin
        /// stays active and untouched.
        /// - Parameters:
        ///   - plugin: An active plugin of this hive.
        ///   - path: The new file.
        ///   - options: Checks made before the new file joins.
        /// - Returns: The new plugin, active.
        /// - Throws: ``PluginError``: as ``load(path:options:)``, or `retired` / `otherHive` for `plugin`.
        @discardableResult
        public func upgrade(
            _ plugin: Plugin, to path: String, options: PluginLoadOptions = PluginLoadOptions()
        ) throws(PluginError) -> Plugin {
            guard plugin.hive === hive else {
                throw PluginError(
                    .otherHive, "expected a plugin of this hive; it belongs to another", path: plugin.path)
            }
            guard plugin.state == .active else {
                throw PluginError(.retired, "expected an active plugin to upgrade; it was retired", path: plugin.path)
            }
            return try hive.loadPlugin(path: path, options: options, replacing: plugin)
        }

        /// Retires `plugin`: withdraws its services, named services, modules and routes, releases the shared
        /// instances BeeHive made of its services, and closes it (a plugin of C code only is unmapped).
        ///
        /// First the observers of its services get `removing` (``Hive/observe(_:fileID:line:_:)-(Service.Type,_,_,_)``)
        /// while they are still served; then the retire waits until the leases on them end (`withService(_:)`), each
        /// step at most `drainTimeout`. When it returns, no resolve and no lease hands out anything of it.
        /// - Parameters:
        ///   - plugin: An active plugin of this hive.
        ///   - drainTimeout: How long to wait for the `removing` handlers, then for the leases.
        /// - Throws: ``PluginError`` with code `retired`, `otherHive`, or `pluginBusy` (leases still open: the plugin
        ///   stays active).
        public func retire(_ plugin: Plugin, drainTimeout: Duration = .seconds(10)) throws(PluginError) {
            guard plugin.hive === hive else {
                throw PluginError(
                    .otherHive, "expected a plugin of this hive; it belongs to another", path: plugin.path)
            }
            guard plugin.state == .active else {
                throw PluginError(.retired, "expected an active plugin; it was retired before", path: plugin.path)
            }
            try hive.instrumented(.retire, path: plugin.path) { () throws(PluginError) in
                try hive.timeline.span("plugin.retire", category: "plugin") {
                    (arguments: inout HiveTimeline.SpanArguments) throws(PluginError) in
                    if arguments.isRecording { arguments["path"] = .string(plugin.path) }
                    try hive.retireActive(plugin, drainTimeout: drainTimeout)
                }
            }
        }

        /// Follows the plugins that join and leave (for products built on the hive, such as the module manager).
        /// - Returns: A token for ``stopObserving(_:)``.
        package func observe(_ handler: @escaping @Sendable (PluginEvent) -> Void) -> Int {
            hive.pluginTable.observe(handler)
        }

        /// Stops an observer.
        package func stopObserving(_ token: Int) { hive.pluginTable.removeObserver(token) }
    }

    /// Retires an active plugin of this hive (``Plugins-swift.struct/retire(_:drainTimeout:)``, checked).
    func retireActive(_ plugin: Plugin, drainTimeout: Duration) throws(PluginError) {
        try drain(plugin, timeout: drainTimeout)
        guard plugin.markRetired() else {
            leases.endDrain(plugin.imageID, withdrawn: false)
            throw PluginError(.retired, "expected an active plugin; it was retired before", path: plugin.path)
        }
        var withdrawal = state.withLock {
            $0.withdraw(image: plugin.imageID, reason: "the plugin \(plugin.path) was retired")
        }
        leases.endDrain(plugin.imageID, withdrawn: true)
        TypedRecords.remove(image: plugin.imageID)
        TypeLookup.retire(imagePath: plugin.mappedPath)
        pluginTable.deactivate(plugin)
        let modules = withdrawal.modules
        withdrawal.released.removeAll()  // the shared instances go here, outside every lock
        pluginTable.notify([.retired(plugin, modules: modules)])
        plugin.close()
    }

    /// Loads a plugin, replacing `old` when given; recorded as the span `plugin.load` or `plugin.upgrade`.
    func loadPlugin(path: String, options: PluginLoadOptions, replacing old: Plugin?) throws(PluginError) -> Plugin {
        try instrumented(old == nil ? .load : .upgrade, path: path) { () throws(PluginError) in
            try timedLoad(path: path, options: options, replacing: old)
        }
    }

    /// What a plugin operation reports to swift-metrics and swift-distributed-tracing: the span
    /// `beehive.plugin.<operation>`, the counter `beehive.plugins` by operation and outcome (`ok` or the refusal's
    /// code), and the timer `beehive.plugin.duration` by operation.
    private func instrumented<Result>(
        _ operation: PluginOperation, path: String, _ body: () throws(PluginError) -> Result
    ) throws(PluginError) -> Result {
        let telemetry = telemetry
        let start = ContinuousClock.now
        var outcome = "ok"
        defer {
            let elapsed = (ContinuousClock.now - start).components
            let nanoseconds = UInt64(elapsed.seconds) * 1_000_000_000 + UInt64(elapsed.attoseconds / 1_000_000_000)
            telemetry.count("beehive.plugins", [("operation", operation.rawValue), ("outcome", outcome)])
            telemetry.time("beehive.plugin.duration", [("operation", operation.rawValue)], nanoseconds: nanoseconds)
        }
        return try telemetry.span("beehive.plugin.\(operation.rawValue)", ["beehive.plugin.path": .string(path)]) {
            _ throws(PluginError) -> Result in
            do throws(PluginError) {
                return try body()
            } catch {
                outcome = "\(error.code)"
                throw error
            }
        }
    }

    /// The operations on plugins that telemetry tells apart.
    private enum PluginOperation: String {
        case load, upgrade, retire
    }

    /// ``loadPlugin(path:options:replacing:)`` on the hive's timeline.
    private func timedLoad(
        path: String, options: PluginLoadOptions, replacing old: Plugin?
    ) throws(PluginError) -> Plugin {
        try timeline.span(old == nil ? "plugin.load" : "plugin.upgrade", category: "plugin") {
            (arguments: inout HiveTimeline.SpanArguments) throws(PluginError) -> Plugin in
            if arguments.isRecording {
                arguments["path"] = .string(path)
                if let old { arguments["replacing"] = .string(old.path) }
            }
            let plugin = try loadPluginFile(path: path, options: options, replacing: old)
            if arguments.isRecording {
                arguments["services"] = .integer(plugin.registered.services)
                arguments["modules"] = .integer(plugin.registered.modules)
                arguments["routes"] = .integer(plugin.registered.routes)
            }
            return plugin
        }
    }

    /// ``loadPlugin(path:options:replacing:)`` without its span.
    private func loadPluginFile(
        path: String, options: PluginLoadOptions, replacing old: Plugin?
    ) throws(PluginError) -> Plugin {
        guard let scanner else {
            throw PluginError(
                .notScanning, "expected a hive that reads the records of loaded images (Options.scansLoadedImages)",
                path: path)
        }
        let resolved = try PluginFile.resolve(path)
        if options.requiresTrustedFiles { try PluginFile.checkTrust(resolved, given: path) }
        let hostImages = try PluginFile.checkBeforeLoading(resolved, given: path)
        let mappedPath = try PluginFile.loadablePath(for: resolved, in: options.copyDirectory)
        defer { unlink(mappedPath) }  // once mapped (and scanned), or refused, the name is no longer needed
        let claim = pluginTable.claim(mappedPath, replacing: old, hostImages: hostImages)
        defer { pluginTable.release(claim) }

        guard let handle = dlopen(mappedPath, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "no reason given"
            pluginTable.update(claim) { $0.isRefused = true }
            throw PluginError(.notLoadable, "expected a shared library the loader accepts; \(reason)", path: path)
        }
        ImageScanner.pinSwiftImages()
        let hasSwiftCode = Self.needsSwift(handle)

        if let found = Self.secondBeeHive(in: handle) {
            let copy = found == mappedPath ? "the plugin \(path) itself" : found
            pluginTable.update(claim) { $0.isRefused = true }
            dlclose(handle)
            throw PluginError(
                .secondBeeHive,
                "expected the plugin to use the host's BeeHive; \(copy) carries a copy of its own, which would "
                    + "register into another Hive.shared. Link the plugin with the BeeHiveDynamic product only (it "
                    + "has the macros' declarations too), not BeeHive, BeeHiveMacros or the other static products",
                path: path)
        }

        // Scan now: this thread's scan, or another thread's that took the image first, joins it (`join(_:)`).
        let (report, problems) = scanning.withLock { count in
            count += 1
            return ingest(scanRecorded(scanner))
        }
        _ = report
        log(problems)
        let outcome: PluginTable.Outcome? = scanning.withLock { _ in
            if let outcome = pluginTable.update(claim, { $0.outcome }) { return outcome }
            // No section of it came: an image without records (libelf could not tell before), refused.
            pluginTable.update(claim) { $0.isRefused = true }
            return nil
        }

        guard let outcome, !outcome.isEmpty else {
            dlclose(handle)
            throw PluginError(
                .noRecords,
                "expected a plugin that declares services, modules or routes; the loaded image has no record "
                    + "section, so it registered nothing (a plugin of Swift code stays mapped)", path: path)
        }
        switch outcome {
        case .refused(let problems):
            dlclose(handle)
            throw PluginError(
                .refused,
                "expected records that can all be registered; \(problems.count) cannot, so the plugin registered "
                    + "nothing (a plugin of Swift code stays mapped)", path: path, problems: problems)
        case .ready(let prepared):
            return try commit(
                prepared, path: path, mappedPath: mappedPath, handle: handle, replacing: old,
                hasSwiftCode: hasSwiftCode, drainTimeout: options.drainTimeout)
        }
    }

    /// Puts a prepared plugin's registrations in force, replacing those of `old` (drained first) in one step.
    private func commit(
        _ prepared: PluginTable.Prepared, path: String, mappedPath: String, handle: UnsafeMutableRawPointer,
        replacing old: Plugin?, hasSwiftCode: Bool, drainTimeout: Duration
    ) throws(PluginError) -> Plugin {
        pluginTable.remember(imageID: prepared.imageID, path: path)
        if let old {
            do {
                try drain(old, timeout: drainTimeout)
            } catch {
                TypedRecords.remove(image: prepared.imageID)
                dlclose(handle)
                throw error
            }
        }
        var (withdrawal, duplicates, moduleDuplicates) = state.withLock {
            $0.replace(
                image: old?.imageID, reason: "the plugin \(old?.path ?? "") was upgraded to \(path)",
                services: prepared.services, modules: prepared.modules, routes: prepared.routes)
        }
        if let old { leases.endDrain(old.imageID, withdrawn: true) }
        let severity = duplicateSeverity
        var problems = duplicates.map { Diagnostic(severity, .duplicate($0, of: $1)) }
        for existing in moduleDuplicates {
            problems.append(
                Diagnostic(
                    severity,
                    HiveError(
                        .duplicateRegistration,
                        "expected module \(existing.name) to be declared once; it was declared before by "
                            + "\(existing.source), which is kept",
                        source: .image(mappedPath, imageID: prepared.imageID))))
        }
        record(problems)
        let plugin = Plugin(
            hive: self, path: path, mappedPath: mappedPath, imageID: prepared.imageID, hasSwiftCode: hasSwiftCode,
            registered: prepared.registered, handle: handle)
        pluginTable.activate(plugin, replacing: old)
        var events: [PluginEvent] = []
        if let old, old.markRetired() {
            TypedRecords.remove(image: old.imageID)
            TypeLookup.retire(imagePath: old.mappedPath)
            events.append(.retired(old, modules: withdrawal.modules))
        }
        events.append(.joined(plugin, modules: prepared.modules))
        withdrawal.released.removeAll()  // the old version's shared instances go here, outside every lock
        pluginTable.notify(events)
        old?.close()
        return plugin
    }

    /// Tells the observers of `plugin`'s services that they are leaving (`removing`, waiting for the handlers up to
    /// `timeout`, reporting those that had not returned), then drains its leases (up to `timeout`). On success the
    /// plugin's image stays drained (new leases wait) until the caller ends the drain.
    func drain(_ plugin: Plugin, timeout: Duration) throws(PluginError) {
        let observers = existingServiceObservers
        let leaving = observers == nil ? [] : state.withLock { $0.registrations(ofImage: plugin.imageID) }
        for site in observers?.postRemoving(leaving, timeout: timeout) ?? [] {
            record([
                Diagnostic(
                    .warning,
                    HiveError(
                        .slowObserver,
                        "expected the observer added at \(site) to return from a removing event within \(timeout); "
                            + "it had not, and the plugin \(plugin.path) left anyway",
                        source: .image(plugin.mappedPath, imageID: plugin.imageID)))
            ])
        }
        if let holders = leases.drain(plugin.imageID, timeout: timeout) {
            observers?.post(.added, leaving)  // it stays: its registrations serve again
            throw PluginError(
                .pluginBusy,
                "expected the leases on the plugin's services to end within \(timeout); \(holders.count) still "
                    + "open, taken at " + holders.joined(separator: ", ") + "; the plugin stays active",
                path: plugin.path)
        }
    }

    /// Joins a claimed image: refuses it, or reads and checks its records, ready for the loading call to put them in
    /// force (``PluginTable/Outcome/ready(_:)``). Called with the scanning lock held, never the registry's.
    func join(
        _ image: PluginTable.ClaimedImage
    ) -> (registered: Plugin.Registered, problems: [Diagnostic], outcome: PluginTable.Outcome) {
        var problems = image.problems.map(Diagnostic.init)
        var parsed = ParsedRecords()
        for section in image.sections where options.registersRecords(of: section.sectionName) {
            parse(section, into: &parsed, problems: &problems)
        }
        problems += Self.protocolsDefinedTwice(by: parsed.services, hostImages: image.claim.hostImages)
        problems += checkAPIVersions(of: &parsed.services, own: parsed.apis, isPlugin: true)
        let errors = problems.filter { $0.severity == .error }
        if !errors.isEmpty {
            // The typed records its Swift records made were kept for questions by name: the image is closed.
            if let refused = image.sections.first?.imageID { TypedRecords.remove(image: refused) }
            let outcome = PluginTable.Outcome.refused(problems)
            pluginTable.update(image.claim) { claim in
                claim.isRefused = true
                claim.outcome = outcome
            }
            return (Plugin.Registered(), problems, outcome)
        }
        let imageID = image.sections.first?.imageID ?? 0
        for section in image.sections where section.kind == .types { TypedRecords.add(section) }
        let path = image.claim.mappedPath
        for entry in parsed.services {
            if case .implementation = entry.provider { continue }  // bound by its typed record, in the plugin's code
            if let provider = Self.provider(named: entry.registration.implementation, inImage: path, id: imageID) {
                entry.provider = provider
            }
        }
        let outcome = PluginTable.Outcome.ready(
            PluginTable.Prepared(
                imageID: imageID, services: parsed.services, modules: parsed.modules, routes: parsed.routes))
        pluginTable.update(image.claim) { $0.outcome = outcome }
        return (
            Plugin.Registered(
                services: parsed.services.count, modules: parsed.modules.count, routes: parsed.routes.count), problems,
            outcome
        )
    }

    /// A problem for each service the plugin registers whose protocol more than one loaded image defines, one of them
    /// loaded with the plugin: the plugin (or a library it brought) carries its own copy of the host's protocol
    /// module, and its types conform to that copy, not to the one the host asks for. Copies that were loaded before
    /// (`hostImages`) are not this plugin's doing, and do not refuse it.
    static func protocolsDefinedTwice(by services: [ServiceEntry], hostImages: Set<String>) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for registration in services.map(\.registration) {
            let service = registration.service
            let images = TypeLookup.imagesDefiningProtocol(named: service, refreshing: true)
            guard images.contains(where: { !hostImages.contains($0) }) else { continue }
            problems.append(
                Diagnostic(
                    .error,
                    HiveError(
                        .doesNotConform,
                        "expected \(service) to be defined by one loaded image; \(images.count) define it ("
                            + images.joined(separator: ", ") + "): the plugin brings its own copy of the "
                            + "protocol's module, and its types conform to that copy only. Link the module as a "
                            + "shared library that the host and its plugins both load", source: registration.source)))
        }
        return problems
    }

    /// The implementation named `name` as the image at `path` defines it, when it does: a new version of a plugin
    /// may name its types as the old one did, and the old one stays mapped.
    static func provider(named name: String, inImage path: String, id imageID: UInt64) -> Provider? {
        if let typed = TypedRecords.implementation(named: name), let implementation = typed.implementation,
            typed.imageID == imageID
        {
            return .implementation(implementation, boxes: typed.services)
        }
        // The module's index as binding reads it (read again once images were loaded since): found by name, not by
        // a walk per implementation, and without the types of images found corrupt.
        guard let declarations = TypeLookup.declarations(named: name, refreshing: true),
            let entry = declarations.first(where: { $0.imagePath == path }), let type = entry.type,
            let implementation = Conformances.implementation(type, path: Hive.defaultBindingPath)
        else { return nil }
        return .implementation(implementation, boxes: .none)
    }

    /// Whether the image of `handle` holds Swift code (it hands metadata to the Swift runtime).
    static func needsSwift(_ handle: UnsafeMutableRawPointer) -> Bool { bh_handle_needs_swift(handle) != 0 }

    /// The image that answers for BeeHive's marker in the plugin's scope with another copy than this one, if any.
    static func secondBeeHive(in handle: UnsafeMutableRawPointer) -> String? {
        guard let other = bh_other_definition(handle, RuntimeMarker.symbol, RuntimeMarker.address) else { return nil }
        defer { free(other) }
        return String(cString: other)
    }
}

extension Plugin {
    /// Closes the plugin's handle: unmaps a plugin of C code only; a pinned Swift image stays.
    func close() { dlclose(handle) }
}
