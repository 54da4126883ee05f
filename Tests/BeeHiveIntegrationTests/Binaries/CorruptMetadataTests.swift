import BeeHiveTestSupport
import Foundation
import Testing

/// Plugins whose Swift metadata lies: a small Swift shared library compiled here with swiftc, then corrupted byte by
/// byte in a copy (a relative pointer sent outside the image, a name left unterminated), opened by PluginLab in a child
/// process, which then asks for a plugin type and creates a host service by name. Each case must end with exit status
/// 0, the host type resolved, and one diagnostic that names the plugin and what was out of bounds. (A type's
/// conformances are read from the image that holds the type only: a plugin nobody asks about is not read for them.)
@Suite("Real binaries: plugins with corrupted Swift metadata (PluginLab in a child process)", .serialized)
struct CorruptMetadataTests {
    /// One way to corrupt the plugin, and what its diagnostic says.
    struct Corruption: Sendable, CustomStringConvertible {
        let description: String
        let expected: String
        let patch: @Sendable (inout ELFPatcher) throws -> Void
    }

    static let source = """
        public protocol HostileProbe { func probe() -> String }
        public struct HostileStruct: HostileProbe { public init() {}; public func probe() -> String { "struct" } }
        public final class HostileClass: HostileProbe { public init() {}; public func probe() -> String { "class" } }
        public enum HostileEnum { case one }
        """

    /// Far outside any image this test loads: 1 GiB past the record.
    static let farAway: Int64 = 1 << 30

    static let corruptions: [Corruption] = [
        Corruption(
            description: "a type metadata record pointing 1 GiB past the image",
            expected: "the type metadata record at"
        ) { elf in
            let record = try elf.swiftRecord(in: "swift5_type_metadata")
            elf.write(UInt64(UInt32(truncatingIfNeeded: farAway)), at: record.offset, width: 4)
        },
        // (A conformance *record* sent outside the image is not among these: the Swift runtime follows it itself at the
        // next cast anywhere in the process and crashes, BeeHive or not. Its descriptor's protocol it only compares.)
        Corruption(
            description: "a conformance descriptor's protocol pointing 1 GiB past the image",
            expected: "the protocol of the conformance descriptor at"
        ) { elf in
            let record = try elf.swiftRecord(in: "swift5_protocol_conformances")
            let descriptor = try elf.relativeTarget(at: record.address)
            elf.write(UInt64(UInt32(truncatingIfNeeded: farAway)), at: try elf.fileOffset(of: descriptor), width: 4)
        },
        Corruption(
            description: "a type's parent pointing through a slot outside the image",
            expected: "the parent of the context descriptor at"
        ) { elf in
            let type = try elf.firstTypeDescriptor()
            elf.write(UInt64(UInt32(truncatingIfNeeded: farAway | 1)), at: try elf.fileOffset(of: type + 4), width: 4)
        },
        Corruption(
            description: "the module's name pointing outside the image",
            expected: "the name of the context descriptor at"
        ) { elf in
            let module = try elf.moduleDescriptor()
            elf.write(UInt64(UInt32(truncatingIfNeeded: farAway)), at: try elf.fileOffset(of: module + 8), width: 4)
        },
        Corruption(
            description: "the module's name running unterminated to the end of its segment",
            expected: "runs unterminated to the end of its segment"
        ) { elf in
            let module = try elf.moduleDescriptor()
            let field = module + 8
            // A segment that ends where its file bytes end (no zero-filled tail after them): the metadata's own.
            let segment = try elf.loadSegment(holding: elf.section(named: "swift5_type_metadata"))
            try #require(segment.fileSize == segment.memorySize, "the metadata's segment has no .bss")
            let end = segment.address + segment.fileSize
            let fill = 8
            let start = try elf.fileOffset(of: end - UInt64(fill))
            for i in 0..<fill { elf.write(UInt64(UInt8(ascii: "A")), at: start + i, width: 1) }
            let offset = Int64(end) - Int64(fill) - Int64(field)
            elf.write(UInt64(UInt32(truncatingIfNeeded: offset)), at: try elf.fileOffset(of: field), width: 4)
        },
    ]

    /// Compiles the plugin (module `Hostile`) into `folder`, then writes a corrupted copy.
    func corruptedPlugin(_ corruption: Corruption, in folder: LabFolder) throws -> String {
        let source = folder.path("hostile.swift")
        try Self.source.write(toFile: source, atomically: true, encoding: .utf8)
        let original = folder.path("libHostile.so")
        try Command.run("swiftc", ["-emit-library", "-module-name", "Hostile", source, "-o", original])
        var elf = try ELFPatcher(contentsOf: original)
        try corruption.patch(&elf)
        let path = folder.path("libHostileCorrupt.so")
        try elf.write(to: path)
        return path
    }

    func diagnostics(_ run: LabRun, _ step: Int, about path: String) -> [LabDiagnostic] {
        let names = [path, URL(fileURLWithPath: path).resolvingSymlinksInPath().path]
        return run.diagnostics(step).filter { names.contains($0.imagePath) }
    }

    @Test(
        "asking for a plugin type: one diagnostic names the plugin and what was outside; the host still resolves its type",
        arguments: corruptions)
    func hostResolvesAndOneDiagnostic(_ corruption: Corruption) throws {
        let folder = try LabFolder()
        let plugin = try corruptedPlugin(corruption, in: folder)
        var script = LabScript()
        let open = script.open(plugin)
        let plugins = script.add("resolve:Hostile.HostileStruct")  // no LabService: an error, after reading the plugin
        let resolve = script.add("resolve:PluginLab.LabServiceImpl")
        let again = script.add("resolve:PluginLab.LabServiceImpl")
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script, timeout: 60)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(open, "open")?.hasPrefix("handle:") == true, "\(run)")
        #expect(run.value(plugins, "resolve")?.hasPrefix("error") == true, "\(run)")
        #expect(run.value(resolve, "resolve") == "LabServiceImpl", "\(run)")
        #expect(run.value(again, "resolve") == "LabServiceImpl", "\(run)")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.code == "unreadableImage")
        #expect(found.first?.message.contains("expected the Swift metadata of") == true, "\(run)")
        #expect(found.first?.message.contains(corruption.expected) == true, "\(run)")
        // Nothing else is blamed: no image but the plugin has a binding diagnostic.
        let blamed = run.diagnostics(diagnostics).filter { $0.message.contains("Swift metadata") }
        #expect(blamed.count == 1, "\(run)")
    }

    @Test("a type whose access function points into data: asking for it by name calls nothing, says so once")
    func accessFunctionOutsideCode() throws {
        let folder = try LabFolder()
        let corruption = Corruption(
            description: "the first type's access function pointing at its own descriptor (data, not code)",
            expected: "outside the image's executable segments"
        ) { elf in
            let type = try elf.firstTypeDescriptor()
            // TargetTypeContextDescriptor.AccessFunctionPtr, at offset 12: back to the descriptor's first byte.
            elf.write(UInt64(UInt32(bitPattern: -12)), at: try elf.fileOffset(of: type + 12), width: 4)
        }
        let plugin = try corruptedPlugin(corruption, in: folder)
        var script = LabScript()
        script.open(plugin)
        let plugins = script.add("resolve:Hostile.HostileStruct")
        let host = script.add("resolve:PluginLab.LabServiceImpl")
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script, timeout: 60)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(plugins, "resolve")?.hasPrefix("error") == true, "\(run)")
        #expect(run.value(host, "resolve") == "LabServiceImpl", "\(run)")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.contains(corruption.expected) == true, "\(run)")
    }

    @Test(
        "a C record's implementation whose name points outside its plugin: an error, one diagnostic, no crash",
        arguments: [false, true])
    func recordedImplementationCorrupt(alsoInCode: Bool) throws {
        let products = try FixturePackage.products("debug")
        let folder = try LabFolder()
        var elf = try ELFPatcher(contentsOf: products.appendingPathComponent("libGreeterPlugin.so").path)
        // PluginGreeter, which the plugin's record names and which conforms to ServiceImplementation: its
        // TargetNamedContextDescriptor.Name (offset 8) sent 1 GiB away.
        let type = try elf.typeDescriptor(named: "PluginGreeter")
        elf.write(UInt64(UInt32(truncatingIfNeeded: Self.farAway)), at: try elf.fileOffset(of: type + 8), width: 4)
        let plugin = folder.path("libGreeterPlugin.so")
        try elf.write(to: plugin)
        // The host and the plugin share BeeHiveDynamic and PluginAPI: the copy's dependencies are the host's, loaded.
        // Records only: the service is first bound through the plugin's record (its conformances read first); in code
        // too: a registration by name in the host is bound first, through the index of the module's types.
        let output = try Command.run(
            products.appendingPathComponent("PluginHost").path,
            [plugin, "--report"] + (alsoInCode ? [] : ["--records-only"]))
        let result = Command.keyValues(output)

        #expect(result["firstRescan"] == "services:1,modules:1,sections:2", "\(output)")
        let mapped = URL(fileURLWithPath: plugin).resolvingSymlinksInPath().path
        #expect(result["greet"]?.hasPrefix("error") == true, "\(output)")
        #expect(result["greet"]?.contains("(corrupt, not read: \(mapped); see the unreadableImage error)") == true)
        if alsoInCode { #expect(result["byNameAfterLoad"] == "unknownType", "\(output)") }
        struct Report: Decodable {
            struct Problem: Decodable {
                let code: String
                let message: String
            }
            let problems: [Problem]
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(try #require(result["report"]).utf8))
        let blamed = report.problems.filter { $0.message.contains("Swift metadata of \(mapped)") }
        #expect(blamed.count == 1, "\(report.problems.map(\.message))")
        #expect(blamed.first?.code == "unreadableImage")
        #expect(blamed.first?.message.contains("the name of the context descriptor at") == true)
    }

    @Test("BEEHIVE_RUNTIME_BINDING=runtime: the plugin's metadata is never read, and the host type still resolves")
    func environmentSwitchesTheFastPathOff() throws {
        let folder = try LabFolder()
        let plugin = try corruptedPlugin(Self.corruptions[3], in: folder)
        var script = LabScript()
        script.open(plugin)
        let resolve = script.add("resolve:PluginLab.LabServiceImpl")
        let diagnostics = script.diagnostics()
        let outcome = try TimedCommand.run(
            try PluginLab.executable(), script.steps, environment: ["BEEHIVE_RUNTIME_BINDING": "runtime"], timeout: 60)
        let run = LabRun(outcome)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(resolve, "resolve") == "LabServiceImpl", "\(run)")
        #expect(self.diagnostics(run, diagnostics, about: plugin).isEmpty, "\(run)")
    }
}

extension ELFPatcher {
    /// The PT_LOAD segment whose file-backed part holds `address`.
    func segment(holding address: UInt64) throws -> Segment {
        guard
            let segment = segments.first(where: { $0.type == Self.loadSegment && $0.holds(address: address, size: 1) })
        else { throw Failure(description: "no PT_LOAD segment holds address \(address)") }
        return segment
    }

    /// The file offset of the loaded address `address`.
    func fileOffset(of address: UInt64) throws -> Int {
        let segment = try segment(holding: address)
        return Int(address - segment.address + segment.offset)
    }

    /// The first record (a 32-bit relative pointer) of a Swift metadata section: its address and file offset.
    func swiftRecord(in name: String) throws -> (address: UInt64, offset: Int) {
        let section = try section(named: name)
        guard section.size >= 4 else { throw Failure(description: "section \(name) is empty") }
        return (section.address, Int(section.offset))
    }

    /// The address a 32-bit relative pointer at `address` points to (its low `tagBits` bits masked off).
    func relativeTarget(at address: UInt64, tagBits: Int = 0) throws -> UInt64 {
        let raw = Int32(truncatingIfNeeded: read(at: try fileOffset(of: address), width: 4))
        let offset = Int64(raw) & ~Int64((1 << tagBits) - 1)
        return UInt64(Int64(address) + offset)
    }

    /// The context descriptor the first type metadata record points to (a direct reference).
    func firstTypeDescriptor() throws -> UInt64 {
        let record = try swiftRecord(in: "swift5_type_metadata")
        return try relativeTarget(at: record.address, tagBits: 2)
    }

    /// The context descriptor of the type named `name` (its own name, unqualified) among the type metadata records.
    func typeDescriptor(named name: String) throws -> UInt64 {
        let section = try section(named: "swift5_type_metadata")
        for record in stride(from: section.address, to: section.address + section.size, by: 4) {
            let descriptor = try relativeTarget(at: record, tagBits: 2)
            // TargetNamedContextDescriptor.Name, at offset 8: a direct relative pointer to a NUL-terminated name.
            guard let nameAddress = try? relativeTarget(at: descriptor + 8),
                let start = try? fileOffset(of: nameAddress)
            else { continue }
            if self.bytes[start...].prefix(while: { $0 != 0 }).elementsEqual(name.utf8) { return descriptor }
        }
        throw Failure(description: "no type named \(name) in swift5_type_metadata")
    }

    /// The module context descriptor: the parent of the first type (a direct reference).
    func moduleDescriptor() throws -> UInt64 {
        try relativeTarget(at: try firstTypeDescriptor() + 4, tagBits: 1)
    }
}
