import BeeHiveTestSupport
import Foundation
import Testing

@testable import BeeHive

/// A new hive's scan takes the copies of read-only image memory an earlier scan made while nothing was unloaded since;
/// it reads everything else afresh. Plugins compiled here with cc, loaded under `imageLoading`.
@Suite("Copies of image memory kept between scans", .serialized)
struct KeptCopyTests {
    /// Compiles a plugin: the BeeHive note from `beehive.h`, and `record` in the services section, in writable memory
    /// when `writable` (a second file without the header, so that the section's flags are its own), with
    /// `plugin_record_set(c)` to change the implementation's last letter.
    private static func plugin(_ name: String, record: String, writable: Bool, in folder: URL) throws -> String {
        let header = folder.appendingPathComponent("\(name)-note.c")
        let records = folder.appendingPathComponent("\(name)-records.c")
        let output = folder.appendingPathComponent("lib\(name).so").path
        try "#include <beehive.h>\n".write(to: header, atomically: true, encoding: .utf8)
        let literal = record.replacingOccurrences(of: "\"", with: "\\\"")
        try """
        __attribute__((used, section("beehive_services"))) \(writable ? "" : "const ")char plugin_record[] = "\(literal)";
        void plugin_record_set(char c) { ((char *)plugin_record)[sizeof plugin_record - 4] = c; }
        """.write(to: records, atomically: true, encoding: .utf8)
        let include = Command.repository.appendingPathComponent("CSupport/CBeeHive/include").path
        try Command.run("cc", ["-shared", "-fPIC", "-I", include, header.path, records.path, "-o", output])
        return output
    }

    /// Runs `body` with a new folder for plugins, holding `imageLoading`: what it loads must not show up in what other
    /// suites count.
    private static func withPluginFolder(_ body: (URL) throws -> Void) throws {
        try imageLoading.withLock { _ in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-kept-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try body(folder)
        }
    }

    private static func implementation(of service: String) -> String? {
        Hive(options: .init(scansLoadedImages: true, recordSections: ["beehive_services"]))
            .registration(for: service)?.implementation
    }

    @Test("a record section in writable memory is copied again by each new hive: a change made in between is seen")
    func writableSectionReadAfresh() throws {
        try Self.withPluginFolder { folder in
            let path = try Self.plugin(
                "mutable", record: #"{"service":"Kept.Mutable","impl":"Kept.ImplA"}"#, writable: true, in: folder)
            let handle = try #require(dlopen(path, RTLD_NOW | RTLD_LOCAL))
            defer { dlclose(handle) }
            #expect(Self.implementation(of: "Kept.Mutable") == "Kept.ImplA")
            let set = unsafeBitCast(
                try #require(dlsym(handle, "plugin_record_set")), to: (@convention(c) (CChar) -> Void).self)
            set(CChar(UInt8(ascii: "B")))
            #expect(Self.implementation(of: "Kept.Mutable") == "Kept.ImplB")
        }
    }

    @Test("after an unload, a new hive reads the image loaded in its place, not what was kept of the one before")
    func unloadEmptiesTheKeptCopies() throws {
        try Self.withPluginFolder { folder in
            let first = try Self.plugin(
                "first", record: #"{"service":"Kept.Swapped","impl":"Kept.ImplA"}"#, writable: false, in: folder)
            let second = try Self.plugin(
                "second", record: #"{"service":"Kept.Swapped","impl":"Kept.LongerImplB"}"#, writable: false,
                in: folder)
            let a = try #require(dlopen(first, RTLD_NOW | RTLD_LOCAL))
            #expect(Self.implementation(of: "Kept.Swapped") == "Kept.ImplA")
            #expect(Self.implementation(of: "Kept.Swapped") == "Kept.ImplA")  // from the kept copies
            dlclose(a)
            let b = try #require(dlopen(second, RTLD_NOW | RTLD_LOCAL))
            defer { dlclose(b) }
            #expect(Self.implementation(of: "Kept.Swapped") == "Kept.LongerImplB")
        }
    }
}
