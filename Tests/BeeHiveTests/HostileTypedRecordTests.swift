import BeeHiveTestSupport
import Foundation
import Testing
@_spi(Testing) import _BeeHiveDiscovery

@testable import BeeHive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A C plugin, built here, whose typed records misbehave in every way a foreign record can: its accessor refuses,
/// writes garbage, writes another type, writes nothing, lies outside the image's code, or is of layout version 1
/// (no guard). The host loads it into this process, scans it and asks for typed records.
/// The implementation of the valid typed record beside the hostile plugin's.
struct HostileSuiteValidImpl: TypedGreeter, ServiceImplementation {
    func greet() -> String { "valid" }
}

/// What `@BeeHiveService(TypedGreeter.self)` on `HostileSuiteValidImpl` writes as its accessor.
let hostileSuiteValidAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    _BeeHiveTypedRecord.write(
        .service(
            TypedGreeter.self, implementation: HostileSuiteValidImpl.self, named: "BeeHiveTests.HostileSuiteValidImpl",
            serviceNamed: "BeeHiveTests.TypedGreeter", upcast: { $0 }), to: out, type: type, hint: hint)
}

@Suite("Real binaries: typed records of a hostile plugin are checked before and after they are called", .serialized)
struct HostileTypedRecordTests {
    /// The plugin's source: a valid JSON record, a note that names the typed records' section, and six bad records.
    static let source = #"""
        #define BH_NO_IMAGE_NOTE
        #include <beehive.h>
        #include <stdbool.h>
        #include <stdint.h>
        #include <string.h>

        BH_SERVICE(Hostile.Valid, Hostile.ValidImpl)

        /* The note of the Swift macros: the four default sections, typed records included. */
        __asm__(".pushsection .note.beehive,\"a\",%note\n"
                ".balign 4\n.long 8\n.long 2f - 1f\n.long 1\n.asciz \"BeeHive\"\n.balign 4\n"
                "1:\n.long 2\n.asciz \"services=beehive_services\"\n.asciz \"modules=beehive_mods\"\n"
                ".asciz \"routes=beehive_routes\"\n.asciz \"types=beehive_types\"\n2:\n.balign 4\n.popsection\n");

        static bool refuses(void *out, const void *type, const void *hint) {
            (void)out; (void)type; (void)hint;
            return false;
        }
        static bool writes_garbage(void *out, const void *type, const void *hint) {
            (void)type; (void)hint;
            memset(out, 0xa5, 16);
            return true;
        }
        static bool writes_another_type(void *out, const void *type, const void *hint) {
            (void)type; (void)hint;
            *(uint64_t *)out = 42; /* an integer, not a record */
            return true;
        }
        static bool writes_nothing(void *out, const void *type, const void *hint) {
            (void)out; (void)type; (void)hint;
            return true;
        }
        static const char not_code[64] = "data, not code";

        typedef struct {
            uint32_t magic, layout;
            const void *accessor;
        } typed_record;
        #define TYPED(layout, f) {BH_FORMAT_TYPED_RECORD_MAGIC, layout, (const void *)(f)}
        __attribute__((used, retain, section("beehive_types"), aligned(8))) static const typed_record records[] = {
            TYPED(BH_FORMAT_TYPED_RECORD_LAYOUT, refuses),             /* offset 0x00 */
            TYPED(BH_FORMAT_TYPED_RECORD_LAYOUT, writes_garbage),      /* offset 0x10 */
            TYPED(BH_FORMAT_TYPED_RECORD_LAYOUT, writes_another_type), /* offset 0x20 */
            TYPED(BH_FORMAT_TYPED_RECORD_LAYOUT, writes_nothing),      /* offset 0x30 */
            TYPED(BH_FORMAT_TYPED_RECORD_LAYOUT, not_code),            /* offset 0x40 */
            TYPED(1, refuses),                                         /* offset 0x50: layout 1 */
        };
        """#

    /// Builds the plugin into a folder of its own; returns its path.
    static func build(in folder: URL) throws -> String {
        try Command.buildCPlugin(Self.source, named: "libhostile.so", in: folder)
    }

    @Test("each bad record is one diagnostic naming image and record; valid ones stay; rescan after dlclose is safe")
    func hostilePlugin() throws {
        // Other suites scan loaded images too (Hive.shared among them): the plugin's diagnostics go to the hive that
        // scanned its image, so no other test may load or scan images meanwhile.
        try imageLoading.withLock { _ in try checkHostilePlugin() }
    }

    private func checkHostilePlugin() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-hostile-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plugin = try Self.build(in: folder)

        // A valid typed record of another image, which must keep binding. Of a name of its own: the typed records'
        // suite, which may run at the same time, adds and removes records of TypedGreeterImpl's name.
        let valid = TypedRecordTests.section(accessor: hostileSuiteValidAccessor)
        valid.withUnsafeBytes { buffer in
            TypedRecords.add(
                RecordSection(
                    imagePath: "/valid", imageID: 9_995, sectionName: "beehive_types", kind: .types, bytes: buffer))
        }
        defer { TypedRecords.remove(image: 9_995) }

        let hive = Hive(options: Hive.Options(scansLoadedImages: true))
        hive.rescan()
        let handle = try #require(dlopen(plugin, RTLD_NOW | RTLD_LOCAL))
        hive.rescan()
        // The JSON record registers by name, whatever its typed records do.
        #expect(hive.registration(for: "Hostile.Valid")?.implementation == "Hostile.ValidImpl")
        // The first question calls the accessors (outside every lock).
        #expect(TypeLookup.type(named: "BeeHiveTests.HostileSuiteValidImpl") == HostileSuiteValidImpl.self)

        let mine = hive.diagnostics.filter { $0.source?.imagePath == plugin }
        let messages = mine.map(\.message)
        func count(_ text: String) -> Int { messages.filter { $0.contains(text) }.count }
        // Called, and failed: one diagnostic each, naming the record by its offset in beehive_types.
        #expect(count("typed record at offset 0 of section beehive_types: its accessor answered") == 1, "\(messages)")
        #expect(
            count(
                "typed record at offset 16 of section beehive_types: its accessor reported success but wrote "
                    + "something other") == 1, "\(messages)")
        #expect(
            count(
                "typed record at offset 32 of section beehive_types: its accessor reported success but wrote "
                    + "something other") == 1, "\(messages)")
        #expect(
            count(
                "typed record at offset 48 of section beehive_types: its accessor reported success but wrote "
                    + "nothing") == 1, "\(messages)")
        // Never called: the scanner's checks.
        #expect(count("typed record at offset 0x40") == 1 && count("executable segment") == 1, "\(messages)")
        #expect(count("typed record at offset 0x50") == 1 && count("found version 1") == 1, "\(messages)")
        #expect(mine.count == 6, "\(messages)")
        #expect(mine.allSatisfy { $0.severity == .error })

        // Asking again calls nothing again and reports nothing new.
        #expect(TypeLookup.type(named: "Hostile.ValidImpl") == nil)
        #expect(hive.diagnostics.filter { $0.source?.imagePath == plugin }.count == 6)

        // The plugin goes; its registrations are withdrawn, and nothing it left behind is touched.
        #expect(dlclose(handle) == 0)
        let report = hive.rescan()
        #expect(report.unloadedImages == 1)
        #expect(hive.registration(for: "Hostile.Valid") == nil)
        #expect(TypeLookup.type(named: "BeeHiveTests.HostileSuiteValidImpl") == HostileSuiteValidImpl.self)
        hive.rescan()
    }

    @Test("the accessor's guard: another copy's record type, or no stamp, gets \"not mine\" and nothing is written")
    func guardRefusesOtherCopies() {
        let size = MemoryLayout<_BeeHiveTypedRecord>.size
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: size, alignment: MemoryLayout<_BeeHiveTypedRecord>.alignment)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        // Another copy of BeeHive asks for its own record type: any type but this copy's.
        var other: any Any.Type = Int.self
        var stamp: UInt64 = 7
        let forOther = withUnsafePointer(to: &other) { type in
            withUnsafePointer(to: &stamp) { hint in typedGreeterAccessor(buffer, UnsafeRawPointer(type), hint) }
        }
        #expect(!forOther)
        var mine: any Any.Type = _BeeHiveTypedRecord.self
        let withoutStamp = withUnsafePointer(to: &mine) { type in typedGreeterAccessor(buffer, type, nil) }
        #expect(!withoutStamp)
        #expect(UnsafeRawBufferPointer(start: buffer, count: size).allSatisfy { $0 == 0 })
        // This copy, with a stamp: a record carrying that stamp.
        let wrote = withUnsafePointer(to: &mine) { type in
            withUnsafePointer(to: &stamp) { hint in typedGreeterAccessor(buffer, type, hint) }
        }
        #expect(wrote)
        let record = buffer.assumingMemoryBound(to: _BeeHiveTypedRecord.self).move()
        #expect(record.stamp == 7)
        #expect(String(describing: record.name) == "BeeHiveTests.TypedGreeterImpl")
    }
}
