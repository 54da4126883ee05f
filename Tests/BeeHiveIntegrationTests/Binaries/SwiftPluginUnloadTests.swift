import BeeHiveTestSupport
import Foundation
import Testing

/// A Swift plugin closed by the user's own `dlclose`, then a rescan: the Swift runtime keeps pointers into every Swift
/// image it has seen (conformance and type records), so an unmapped Swift image crashed the next conformance look-up,
/// whichever code made it (first seen in `RegistryState.withdraw(image:)`, where a generic type's first use checks
/// `Hashable`). BeeHive now pins every image of Swift code it sees (RTLD_NODELETE); C plugins still unload.
@Suite("Real binaries: the user's own dlclose of a Swift plugin (HotPluginHost in a child process)", .serialized)
struct SwiftPluginUnloadTests {
    static let configurations = ["debug", "release"]

    @Test(
        "dlclose + rescan of a Swift plugin whose service was resolved: no crash, it stays mapped and served",
        arguments: configurations)
    func closeAfterResolve(_ configuration: String) throws {
        let plugin = try HotPluginHost.products(configuration).appendingPathComponent("libHotGreeterV1.so").path
        let run = try HotPluginHost.run(
            [
                "open:\(plugin)", "rescan", "greet", "route:hot://greet/a", "close:0", "rescan", "greet",
                "route:hot://greet/b", "mapped:/libHotGreeterV1.so",
            ],
            configuration: configuration)
        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.fields(1, "rescan")["services"] == "2")
        #expect(run.value(2, "greet") == "v1:host")
        #expect(run.value(3, "route") == "v1:a")
        #expect(run.value(4, "close") == "0", "dlclose succeeds; the image is pinned, not unmapped")
        #expect(run.fields(5, "rescan")["unloaded"] == "0")
        #expect(run.value(6, "greet") == "v1:host", "its code is still there, and its registrations still serve")
        #expect(run.value(7, "route") == "v1:b")
        #expect(run.value(8, "mapped") == "yes")
    }

    @Test("dlclose + rescan of a Swift plugin never asked for anything: no crash", arguments: configurations)
    func closeWithoutResolve(_ configuration: String) throws {
        let plugin = try HotPluginHost.products(configuration).appendingPathComponent("libHotGreeterV1.so").path
        let run = try HotPluginHost.run(
            ["open:\(plugin)", "rescan", "close:0", "rescan", "greet", "mapped:/libHotGreeterV1.so"],
            configuration: configuration)
        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(4, "greet") == "v1:host")
        #expect(run.value(5, "mapped") == "yes")
    }

    @Test("without pinning (BEEHIVE_PIN=off) the same dlclose + rescan crashes: what pinning prevents")
    func crashWithoutPinning() throws {
        let plugin = try HotPluginHost.products("debug").appendingPathComponent("libHotGreeterV1.so").path
        let run = try HotPluginHost.run(
            ["open:\(plugin)", "rescan", "close:0", "rescan", "greet"], environment: ["BEEHIVE_PIN": "off"])
        #expect(run.outcome.termination == .signaled(SIGSEGV), "\(run)")
        #expect(run.value(2, "close") == "0")
        #expect(run.value(4, "greet") == nil, "the rescan after dlclose did not return")
    }

    @Test(
        "a plugin of C records only is still unloaded for real: unmapped, its registrations withdrawn",
        arguments: configurations)
    func cPluginUnloads(_ configuration: String) throws {
        let plugin = try HotPluginHost.products(configuration).appendingPathComponent("libCRecordsPlugin.so").path
        let run = try HotPluginHost.run(
            [
                "open:\(plugin)", "rescan", "mapped:/libCRecordsPlugin.so", "close:0", "rescan",
                "mapped:/libCRecordsPlugin.so",
            ],
            configuration: configuration)
        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.fields(1, "rescan")["services"] == "2")
        #expect(run.value(2, "mapped") == "yes")
        #expect(run.fields(4, "rescan")["unloaded"] == "1")
        #expect(run.value(5, "mapped") == "no")
    }
}
