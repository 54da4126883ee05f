import BeeHiveTestSupport
import Foundation
import Testing

@testable import BeeHive

/// The plugin packaging mistake: a plugin linked with its own copy of the host's API module, so that a protocol is
/// defined by two loaded images. Built for real: two shared libraries of one module `Twin`, opened with `dlopen`.
@Suite("Real binaries: a protocol defined by two loaded images")
struct DuplicateProtocolTests {
    /// Builds `libTwin<suffix>.so` (module `Twin`, protocol `Twin.Greeter`) in `folder` and opens it.
    static func openTwin(_ suffix: String, in folder: URL) throws -> UnsafeMutableRawPointer {
        let source = folder.appendingPathComponent("twin\(suffix).swift")
        try "public protocol Greeter { func greet() -> String }\npublic enum Marker\(suffix) {}\n"
            .write(to: source, atomically: true, encoding: .utf8)
        let library = folder.appendingPathComponent("libTwin\(suffix).so").path
        _ = try Command.run(
            "swiftc", ["-emit-library", "-module-name", "Twin", source.path, "-o", library], in: folder)
        return try #require(dlopen(library, RTLD_NOW | RTLD_LOCAL), "dlopen \(library)")
    }

    @Test("does-not-conform names both images and says how to package the plugin")
    func doesNotConformExplainsTheTwoCopies() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-twin-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try imageLoading.withLock { _ in
            _ = try Self.openTwin("A", in: folder)
            _ = try Self.openTwin("B", in: folder)  // kept open: Swift images are not unloaded
        }

        let images = TypeLookup.imagesDefiningProtocol(named: "Twin.Greeter")
        #expect(images.map { URL(fileURLWithPath: $0).lastPathComponent } == ["libTwinA.so", "libTwinB.so"])
        let registration = ServiceRegistration(
            service: "Twin.Greeter", name: nil, implementation: "Host.Greeter",
            source: .code(fileID: "T.swift", line: 1))
        let error = HiveError.doesNotConform(registration, service: "Twin.Greeter")
        #expect(error.message.hasPrefix("expected Host.Greeter to conform to Twin.Greeter; it does not."))
        #expect(error.message.contains("is defined by 2 loaded images"))
        #expect(error.message.contains("libTwinA.so") && error.message.contains("libTwinB.so"))
        #expect(error.message.contains("Link the module that declares it once"))
        // One copy: no such explanation.
        let once = HiveError.doesNotConform(registration, service: "BeeHiveTests.GreetingService")
        #expect(once.message == "expected Host.Greeter to conform to BeeHiveTests.GreetingService; it does not")
    }
}
