import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Plugins that come and go, played out by PluginLab in a child process with C plugins of records compiled here
/// (Tests/Fixtures/CPlugins). A crash or a hang of the child fails the test; it does not stop the test runner.
@Suite("Real binaries: plugins that come and go (PluginLab in a child process)", .serialized)
struct PluginLifecycleTests {
    /// How plugin B takes the place of plugin A after A is closed.
    struct Replacement: Sendable, CustomStringConvertible {
        enum Place: Sendable { case otherPath, samePathRenamedOver, samePathRewrittenInPlace }
        let place: Place
        /// Whether the plugins carry a GNU build-id (without it, A and B have the same notes).
        let buildID: Bool
        /// Whether PluginLab runs as the user nobody, who may not open /proc/self/map_files.
        var unprivileged = false

        var description: String {
            let place =
                switch place {
                case .otherPath: "B from another path"
                case .samePathRenamedOver: "B renamed over A's path (new inode)"
                case .samePathRewrittenInPlace: "B copied over A's file in place (same inode)"
                }
            return place + (buildID ? ", with build-ids" : ", without build-ids") + (unprivileged ? ", as nobody" : "")
        }
    }

    static let replacements: [Replacement] = {
        let places = [Replacement.Place.otherPath, .samePathRenamedOver, .samePathRewrittenInPlace]
        let asRoot = places.flatMap { place in [true, false].map { Replacement(place: place, buildID: $0) } }
        let asNobody = places.map { Replacement(place: $0, buildID: false, unprivileged: true) }
        return asRoot + (PluginLab.canRunUnprivileged ? asNobody : [])
    }()

    @Test(
        "B opened where A was (same address) is scanned as new: B's records are registered, A's withdrawn with a warning",
        arguments: replacements)
    func newImageAtAnOldAddress(_ replacement: Replacement) throws {
        let folder = try LabFolder()
        let flags = replacement.buildID ? [] : ["-Wl,--build-id=none"]
        let a = try folder.plugin("alpha.so", from: "alpha.c", flags: flags)
        let b = try folder.plugin("bravo.so", from: "bravo.c", flags: flags)

        var script = LabScript()
        let openA = script.open(a)
        script.rescan()
        let servicesOfA = script.services()
        let alphaWhileLoaded = script.route("lab://alpha/1")
        script.close(handle: 0)
        var pathOfB = b
        switch replacement.place {
        case .otherPath: break
        case .samePathRenamedOver:
            script.replace(a, with: b)
            pathOfB = a
        case .samePathRewrittenInPlace:
            script.copy(b, over: a)
            pathOfB = a
        }
        let openB = script.open(pathOfB)
        let rescan = script.rescan()
        let services = script.services()
        let modules = script.modules()
        let routes = script.declaredRoutes()
        let alpha = script.route("lab://alpha/1")
        let bravo = script.route("lab://bravo/1")
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script, unprivileged: replacement.unprivileged)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.loadAddress(openB) == run.loadAddress(openA), "B is loaded at A's old address: the case under test")
        let imageA = try #require(run.services(servicesOfA).first, "\(run)")
        #expect(run.route(alphaWhileLoaded)?.canOpen == true)

        let mappedB = URL(fileURLWithPath: pathOfB).resolvingSymlinksInPath().path
        #expect(run.report(rescan)["unloaded"] == 1, "\(run)")
        #expect(
            run.services(services).map { "\($0.name) -> \($0.detail)" } == [
                "Lab.BravoService -> Lab.BravoServiceImpl", "Lab.BravoService[fast] -> Lab.BravoServiceFast",
            ], "\(run)")
        let imageB = run.services(services).first?.imageID
        #expect(imageB != nil && imageB != imageA.imageID, "B is another image, with an id of its own")
        #expect(run.services(services).allSatisfy { $0.imagePath == mappedB && $0.imageID == imageB })
        #expect(run.modules(modules).map(\.name) == ["Lab.BravoModule"])
        #expect(run.declaredRoutes(routes).map(\.name) == ["lab://bravo/:id"])
        #expect(run.route(alpha)?.canOpen == false, "A's route went with A")
        #expect(run.route(bravo)?.canOpen == true, "B's route came with B")

        let kept = run.diagnostics(diagnostics)
        #expect(kept.count == 1, "\(kept)")
        let unloaded = try #require(kept.first { $0.code == "imageUnloaded" }, "\(run)")
        #expect(unloaded.severity == "warning")
        #expect(unloaded.imageID == imageA.imageID)
        #expect(unloaded.imagePath == imageA.imagePath)
        #expect(unloaded.message.contains("its 4 registrations were withdrawn"))
    }

    @Test("a library with records renamed over one without, at its old address: a new hive registers its records")
    func recordsWhereAnImageWithoutRecordsWas() throws {
        let folder = try LabFolder()
        let plain = try folder.plugin("plain.so", from: "plain.c")
        let bravo = try folder.plugin("bravo.so", from: "bravo.c")

        // Every walk remembers the images it found without records, for the walks of later hives; what it
        // remembers of an image must end with the image, even when another takes its address and its name.
        var script = LabScript()
        let openPlain = script.open(plain)
        let whilePlain = script.newHiveServices()
        script.close(handle: 0)
        script.replace(plain, with: bravo)
        let openBravo = script.open(plain)
        let afterBravo = script.newHiveServices()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.loadAddress(openBravo) == run.loadAddress(openPlain), "the same address: the case under test")
        #expect(!run.services(whilePlain).contains { $0.name.hasPrefix("Lab.") }, "\(run)")
        #expect(
            run.services(afterBravo).filter { $0.name.hasPrefix("Lab.") }.map { "\($0.name) -> \($0.detail)" } == [
                "Lab.BravoService -> Lab.BravoServiceImpl", "Lab.BravoService[fast] -> Lab.BravoServiceFast",
            ], "\(run)")
    }

    @Test("hot upgrade: v2 loaded beside v1, then v1 closed: services, module and route come from v2")
    func hotUpgrade() throws {
        let folder = try LabFolder()
        let v1 = try folder.plugin("upgrade-v1.so", from: "upgrade_v1.c")
        let v2 = try folder.plugin("upgrade-v2.so", from: "upgrade_v2.c")

        var script = LabScript()
        script.open(v1)
        script.rescan()
        let routeOfV1 = script.route("lab://upgrade/7")
        script.open(v2)
        let duplicates = script.rescan()
        let routeBeside = script.route("lab://upgrade/7")
        script.close(handle: 0)
        let withdrawn = script.rescan()
        let services = script.services()
        let modules = script.modules()
        let routes = script.declaredRoutes()
        let routeOfV2 = script.route("lab://upgrade/7")
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        let mappedV2 = folder.mappedPath("upgrade-v2.so")
        #expect(run.route(routeOfV1)?.openedBy == "LabRoute")
        #expect(run.report(duplicates)["services"] == 2)
        #expect(run.route(routeBeside)?.openedBy == "LabRoute", "first wins while both are loaded")
        #expect(run.report(withdrawn)["unloaded"] == 1)

        let upgraded = run.services(services)
        #expect(
            Set(upgraded.map { "\($0.name) -> \($0.detail) @ \($0.imagePath)" }) == [
                "Lab.UpgradeService -> Lab.UpgradeServiceV2 @ \(mappedV2)",
                "Lab.UpgradeService[fast] -> Lab.UpgradeServiceFastV2 @ \(mappedV2)",
            ], "\(run)")
        #expect(
            run.modules(modules).map { "\($0.name) \($0.detail) @ \($0.imagePath)" } == [
                "Lab.UpgradeModule priority:2 @ \(mappedV2)"
            ])
        #expect(
            run.declaredRoutes(routes).map { "\($0.name) -> \($0.detail) @ \($0.imagePath)" } == [
                "lab://upgrade/:id -> PluginLab.LabRouteV2 @ \(mappedV2)"
            ])
        #expect(run.route(routeOfV2).map { "\($0.canOpen) \($0.openedBy)" } == "true LabRouteV2", "\(run)")

        let kept = run.diagnostics(diagnostics)
        #expect(kept.filter { $0.code == "duplicateRegistration" }.allSatisfy { $0.imagePath == mappedV2 })
        #expect(kept.filter { $0.code == "duplicateRegistration" }.count >= 3, "two services and a module, first wins")
        let unloaded = try #require(kept.first { $0.code == "imageUnloaded" }, "\(run)")
        #expect(unloaded.imagePath == folder.mappedPath("upgrade-v1.so"))
        #expect(unloaded.message.contains("reinstated"), "\(unloaded)")
        #expect(unloaded.message.contains("Lab.UpgradeServiceV2"), "\(unloaded)")
    }

    @Test(
        "routes follow their plugins: closed, its routes stop opening; opened later, its routes open; reopened, no error"
    )
    func routesFollowPlugins() throws {
        let folder = try LabFolder()
        let a = try folder.plugin("alpha.so", from: "alpha.c")
        let b = try folder.plugin("bravo.so", from: "bravo.c")

        var script = LabScript()
        script.open(a)
        script.rescan()
        let alphaLoaded = script.route("lab://alpha/1")
        script.close(handle: 0)
        script.rescan()
        // No lookup between the unload and the next load: the list of declarations shrinks, then grows back.
        script.open(b)
        script.rescan()
        let bravoLoaded = script.route("lab://bravo/2")
        let alphaClosed = script.route("lab://alpha/1")
        script.open(a)
        script.rescan()
        let alphaReopened = script.route("lab://alpha/3")
        let routes = script.declaredRoutes()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.route(alphaLoaded)?.canOpen == true)
        #expect(run.route(bravoLoaded)?.canOpen == true, "a plugin loaded later has its routes, \(run)")
        #expect(run.route(alphaClosed)?.canOpen == false, "a closed plugin's route no longer opens")
        #expect(run.route(alphaReopened)?.canOpen == true, "reopened, its route opens again")
        #expect(Set(run.declaredRoutes(routes).map(\.name)) == ["lab://alpha/:id", "lab://bravo/:id"])
        let kept = run.diagnostics(diagnostics)
        #expect(kept.filter { $0.severity == "error" }.isEmpty, "no malformedRecord or duplicate on reopening: \(kept)")
        #expect(kept.map(\.code) == ["imageUnloaded"])
    }

    @Test(
        "a plugin opened by a relative path is read after chdir, and named by its absolute path",
        arguments: PluginLab.canRunUnprivileged ? [false, true] : [false])
    func relativePath(unprivileged: Bool) throws {
        let folder = try LabFolder()
        try folder.plugin("alpha.so", from: "alpha.c")

        var script = LabScript()
        script.open("./alpha.so")
        script.chdir("/")
        let rescan = script.rescan()
        let services = script.services()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script, in: folder.url, unprivileged: unprivileged)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.report(rescan)["services"] == 2, "\(run)")
        #expect(run.services(services).count == 2)
        #expect(run.services(services).allSatisfy { $0.imagePath == folder.mappedPath("alpha.so") }, "\(run)")
        #expect(run.diagnostics(diagnostics).isEmpty, "\(run)")
    }

    @Test("an image that could not be opened for want of file descriptors (EMFILE) is read by the next rescan")
    func retriedAfterEMFILE() throws {
        let folder = try LabFolder()
        // Format 2: read through its file (format 3's records are copied from memory and need no descriptor).
        let a = try folder.plugin("alpha.so", from: "alpha.c", format: 2)

        var script = LabScript()
        script.open(a)
        script.add("exhaust-fds")
        let starved = script.rescan()
        script.add("release-fds")
        let retried = script.rescan()
        let services = script.services()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.report(starved)["services"] == 0)
        #expect(run.report(retried)["services"] == 2, "\(run)")
        #expect(run.services(services).count == 2)
        let kept = run.diagnostics(diagnostics)
        #expect(kept.count == 1)
        #expect(kept.first?.severity == "warning", "the cause can pass: a warning, not an error")
        #expect(kept.first?.message.contains("will retry") == true, "\(kept)")
    }

    @Test("2,000 open, rescan, close, rescan cycles keep at most 1,000 diagnostics and count the dropped ones")
    func diagnosticsStayBounded() throws {
        let folder = try LabFolder()
        let a = try folder.plugin("alpha.so", from: "alpha.c")

        var script = LabScript()
        let cycles = script.cycles(2_000, a)
        let counts = script.counts()
        let run = try PluginLab.run(script, timeout: 4 * TimedCommand.hangGuard)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(cycles, "cycles") == "2000 failures:0")
        let (kept, dropped) = try #require(run.diagnosticCounts(counts), "\(run)")
        #expect(kept <= 1_000)
        #expect(dropped > 0)
        #expect(kept + dropped == 2_000, "one imageUnloaded warning per cycle, each kept or counted")
    }

    @Test(
        "a router never creates the shared hive: Hive.bootstrap still works after routing; routes join once it is used")
    func routersDoNotBootstrapTheSharedHive() throws {
        let folder = try LabFolder()
        let a = try folder.plugin("alpha.so", from: "alpha.c")

        var script = LabScript()
        script.open(a)
        let before = script.route("lab://alpha/1")
        let bootstrap = script.bootstrap()
        script.services()
        let after = script.route("lab://alpha/1")
        let second = script.bootstrap()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.route(before)?.canOpen == false)
        #expect(run.value(before, "routeError")?.contains("neither has happened yet") == true, "\(run)")
        #expect(run.value(bootstrap, "bootstrap") == "ok", "using a router left Hive.bootstrap possible, \(run)")
        #expect(run.route(after).map { "\($0.canOpen) \($0.openedBy)" } == "true LabRoute", "\(run)")
        #expect(run.value(second, "bootstrap")?.contains("alreadyBootstrapped") == true, "\(run)")
    }

    @Test("Router.removeAllRouters() forgets every scheme router; annotated routes join again on the next use")
    func removeAllRoutersResets() throws {
        let folder = try LabFolder()
        let a = try folder.plugin("alpha.so", from: "alpha.c")

        var script = LabScript()
        script.open(a)
        script.rescan()
        let before = script.route("lab://alpha/1")
        let removed = script.removeAllRouters()
        let after = script.route("lab://alpha/1")
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.route(before).map { "\($0.canOpen) \($0.openedBy)" } == "true LabRoute", "\(run)")
        #expect(run.value(removed, "schemes") == "", "no scheme router is left, \(run)")
        #expect(run.route(after).map { "\($0.canOpen) \($0.openedBy)" } == "true LabRoute", "\(run)")
    }

    @Test("Router.validateDeclaredRoutes(in:) names a handler that is not loaded and one that is no RouteHandler")
    func validateDeclaredRoutes() throws {
        let folder = try LabFolder()
        let bad = try folder.plugin("bad_routes.so", from: "bad_routes.c")

        var script = LabScript()
        let clean = script.validateRoutes()
        script.open(bad)
        script.rescan()
        let found = script.validateRoutes()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(clean, "validate") == "ok")
        let problems = run.values(found, "problem")
        #expect(problems.count == 2, "\(run)")
        #expect(problems.contains { $0.contains("PluginLab.GhostRoute (the handler of lab://ghost/:id)") }, "\(run)")
        #expect(problems.contains { $0.contains("PluginLab.NotARoute") && $0.contains("[notAnImplementation]") })
        #expect(problems.allSatisfy { $0.contains("bad_routes.so") && $0.contains("beehive_routes") }, "\(run)")
    }
}
