import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Images and files that lie: a records plugin (Tests/Fixtures/CPlugins/alpha.c) compiled here, then patched
/// byte by byte (ELFPatcher) or changed under the loaded image, and loaded by PluginLab in a child process. Each
/// case must end with exit status 0 (no SIGSEGV, SIGBUS or hang), keep every record that can still be read, and
/// report the rest with a diagnostic that names the image and the reason.
///
/// The patched fields are ones glibc's loader does not use (PT_NOTE, section headers) or uses harmlessly
/// (PT_LOAD flags), so every patched plugin still loads.
@Suite("Real binaries: hostile images and files (PluginLab in a child process)", .serialized)
struct HostileImageTests {
    /// How a patched plugin gets into the process.
    enum Loading: String, Sendable, CustomStringConvertible {
        /// dlopen, then rescan.
        case dlopen
        /// LD_PRELOAD: loaded before main, found by the startup scan.
        case startup
        var description: String { rawValue }
    }

    /// The alpha plugin (two services, a module, a route) of record format `format`, patched by `patch`, at `name`
    /// in `folder`.
    func patchedPlugin(
        _ name: String, in folder: LabFolder, format: Int = 3, _ patch: (inout ELFPatcher) throws -> Void
    ) throws -> String {
        let original = try folder.plugin("original-" + name, from: "alpha.c", format: format)
        var elf = try ELFPatcher(contentsOf: original)
        try patch(&elf)
        let path = folder.path(name)
        try elf.write(to: path)
        return path
    }

    /// Loads `plugin` as `loading` says, rescans, and returns the run with the steps of its services, modules and
    /// diagnostics.
    func load(
        _ plugin: String, _ loading: Loading = .dlopen
    ) throws -> (run: LabRun, open: Int?, services: Int, modules: Int, diagnostics: Int) {
        var script = LabScript()
        let open = loading == .dlopen ? script.open(plugin) : nil
        script.rescan()
        let services = script.services()
        let modules = script.modules()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script, preloading: loading == .startup ? plugin : nil)
        return (run, open, services, modules, diagnostics)
    }

    /// The diagnostics of `run` that name the image at `path` (by the path the kernel mapped or, for an image
    /// whose notes could not be read, the loader's name).
    func diagnostics(_ run: LabRun, _ step: Int, about path: String) -> [LabDiagnostic] {
        let names = [path, URL(fileURLWithPath: path).resolvingSymlinksInPath().path]
        return run.diagnostics(step).filter { names.contains($0.imagePath) }
    }

    // MARK: - Program headers

    @Test(
        "a PT_NOTE segment whose address lies far outside the image: a diagnostic, no SIGSEGV",
        arguments: [Loading.dlopen, .startup])
    func noteOutsideTheImage(_ loading: Loading) throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("note-outside.so", in: folder) { elf in
            let note = try elf.noteSegment(holding: elf.section(named: ".note.beehive"))
            elf.set(.address, of: note, to: 1 << 40)
        }
        let (run, open, _, _, diagnostics) = try load(plugin, loading)

        // The note that names the record sections cannot be reached, so there is nothing to register: the
        // diagnostic is what is left to give.
        try #require(run.outcome.succeeded, "\(run)")
        if let open { #expect(run.value(open, "open")?.hasPrefix("handle:") == true, "the loader ignores PT_NOTE") }
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.code == "unreadableImage")
        #expect(found.first?.message.contains("PT_NOTE segment") == true)
        #expect(found.first?.message.contains("lies outside the image's readable loaded segments") == true)
    }

    @Test(
        "record sections in a PT_LOAD segment without read permission: a diagnostic per section, no SIGSEGV",
        arguments: [Loading.dlopen, .startup])
    func recordSegmentNotReadable(_ loading: Loading) throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("unreadable.so", in: folder) { elf in
            let records = try elf.loadSegment(holding: elf.section(named: "beehive_services"))
            let notes = try elf.section(named: ".note.beehive")
            try #require(
                !records.holds(address: notes.address, size: notes.size),
                "the notes must lie in another segment (linked with -z separate-code)")
            elf.set(.flags, of: records, to: UInt64(records.flags & ~ELFPatcher.readable))
        }
        let (run, _, services, _, diagnostics) = try load(plugin, loading)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.services(services).isEmpty)
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(
            Set(found.compactMap { $0.message.split(separator: " ").dropFirst().first }) == [
                "beehive_services", "beehive_mods", "beehive_routes",
            ], "\(run)")
        #expect(found.allSatisfy { $0.message.contains("without read permission") })
    }

    // MARK: - Files changed under a loaded image

    // The tests of this mark and the next (section headers) build plugins of record format 2, whose records the
    // scanner reads through the plugin's file. Format 3 places them in memory: `filesThatLie` shows that none of
    // these changes matter to it.

    @Test(
        "a FIFO put at a loaded plugin's path: no hang; read through the kernel's mapping, or a diagnostic",
        arguments: PluginLab.canRunUnprivileged ? [false, true] : [false])
    func fifoAtThePluginsPath(unprivileged: Bool) throws {
        let folder = try LabFolder()
        let plugin = try folder.plugin("alpha.so", from: "alpha.c", format: 2)
        var script = LabScript()
        script.open(plugin)
        let fifo = script.replaceWithFIFO(plugin)
        script.rescan()
        let services = script.services()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script, unprivileged: unprivileged)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(fifo, "mkfifo") == "ok")
        if unprivileged {
            // /proc/self/map_files cannot be opened without CAP_SYS_ADMIN; the path now holds a FIFO.
            let found = self.diagnostics(run, diagnostics, about: plugin)
            #expect(found.count == 1, "\(run)")
            #expect(found.first?.code == "unreadableImage")
        } else {
            // As root, the file the kernel mapped is opened through /proc/self/map_files.
            #expect(run.services(services).count == 2, "\(run)")
            #expect(run.diagnostics(diagnostics).isEmpty, "\(run)")
        }
    }

    /// How much of a loaded plugin's file is left.
    enum Truncation: String, Sendable, CustomStringConvertible {
        case toNothing, toHalf
        var description: String { rawValue }
    }

    @Test(
        "a plugin file truncated after dlopen (to 0 bytes, to half): a diagnostic, no SIGBUS, other plugins still read",
        arguments: [Truncation.toNothing, .toHalf])
    func truncatedAfterLoad(_ truncation: Truncation) throws {
        let folder = try LabFolder()
        let plugin = try folder.plugin("alpha.so", from: "alpha.c", format: 2)
        let other = try folder.plugin("bravo.so", from: "bravo.c", format: 2)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: plugin)[.size] as? Int)
        var script = LabScript()
        script.open(plugin)
        script.truncate(plugin, to: truncation == .toNothing ? 0 : size / 2)
        script.rescan()
        script.open(other)
        script.rescan()
        script.close(handle: 1)
        script.rescan()  // an unload: every image is checked again
        script.open(other)
        script.rescan()
        let services = script.services()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.services(services).map(\.name) == ["Lab.BravoService", "Lab.BravoService[fast]"], "\(run)")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "reported once, not at every rescan: \(run)")
        #expect(found.first?.code == "unreadableImage")
        #expect(found.first?.message.contains("truncated since it was loaded") == true, "\(run)")
    }

    @Test("a loaded plugin's file overwritten in place with a head that is not ELF: \"expected an ELF file\"")
    func overwrittenWithGarbage() throws {
        let folder = try LabFolder()
        let plugin = try folder.plugin("alpha.so", from: "alpha.c", format: 2)
        var script = LabScript()
        script.open(plugin)
        script.overwriteHead(plugin)
        script.rescan()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.hasPrefix("expected an ELF file; found a file without the ELF magic") == true)
    }

    // MARK: - Section headers

    @Test("section headers removed (e_shoff = e_shnum = e_shstrndx = 0): \"no section headers\"")
    func noSectionHeaders() throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("stripped.so", in: folder, format: 2) { elf in
            elf.set(.sectionHeaderOffset, to: 0)
            elf.set(.sectionHeaderCount, to: 0)
            elf.set(.sectionNameTableIndex, to: 0)
        }
        let (run, _, _, _, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.contains("no section headers") == true)
        #expect(found.first?.message.contains("beehive_services") == true)
    }

    /// How a record section's sh_name is corrupted.
    enum NameCorruption: String, Sendable, CustomStringConvertible {
        /// Points at another section's name (".text").
        case anotherName
        /// Points past the end of the section name table.
        case outOfRange
        var description: String { rawValue }
    }

    @Test(
        "beehive_services' sh_name corrupted: a diagnostic names the missing section; the other sections are read",
        arguments: [NameCorruption.anotherName, .outOfRange])
    func sectionNameCorrupted(_ corruption: NameCorruption) throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("renamed.so", in: folder, format: 2) { elf in
            let records = try elf.section(named: "beehive_services")
            let name = corruption == .anotherName ? UInt64(try elf.section(named: ".text").nameOffset) : 0xf_ffff
            elf.set(.name, of: records, to: name)
        }
        let (run, _, services, modules, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.services(services).isEmpty)
        #expect(run.modules(modules).map(\.name) == ["Lab.AlphaModule"], "the module section is intact")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.contains("beehive_services") == true)
    }

    @Test(
        "extended numbering (e_shnum = 0 and e_shstrndx = SHN_XINDEX, the counts in section 0): every record is read")
    func extendedSectionNumbering() throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("extended.so", in: folder, format: 2) { elf in
            let sections = elf.sections
            let names = elf.read(at: 62, width: 2)  // e_shstrndx
            elf.set(.size, of: sections[0], to: UInt64(sections.count))
            elf.set(.link, of: sections[0], to: names)
            elf.set(.sectionHeaderCount, to: 0)
            elf.set(.sectionNameTableIndex, to: 0xffff)
        }
        let (run, _, services, modules, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.services(services).map(\.name) == ["Lab.AlphaService", "Lab.AlphaService[fast]"], "\(run)")
        #expect(run.modules(modules).map(\.name) == ["Lab.AlphaModule"])
        #expect(run.diagnostics(diagnostics).isEmpty, "\(run)")
    }

    /// How the section header table or the section name table lies.
    enum TableCorruption: String, Sendable, CustomStringConvertible {
        /// e_shentsize is 32, not 64: entries that are not Elf64_Shdr.
        case entrySize
        /// e_shstrndx points at .text, which is not a string table.
        case namesNotStrings
        /// The section name table's sh_size runs far past the end of the file.
        case namesPastTheEnd
        /// e_shnum is 0xffff: the table runs past the end of the file.
        case tooManyHeaders
        var description: String { rawValue }

        /// What the diagnostic must say.
        var expected: String {
            switch self {
            case .entrySize: "section headers are 32 bytes each; expected 64"
            case .namesNotStrings: "section name table cannot be read"
            case .namesPastTheEnd: "past the end of the file"
            case .tooManyHeaders: "65535 section headers at file offset 0x"
            }
        }
    }

    @Test(
        "a section header table or name table that lies: one diagnostic naming the record sections, nothing read",
        arguments: [TableCorruption.entrySize, .namesNotStrings, .namesPastTheEnd, .tooManyHeaders])
    func sectionTableCorrupted(_ corruption: TableCorruption) throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("table.so", in: folder, format: 2) { elf in
            let names = elf.sections[Int(elf.read(at: 62, width: 2))]
            switch corruption {
            case .entrySize: elf.set(.sectionHeaderSize, to: 32)
            case .namesNotStrings: elf.set(.sectionNameTableIndex, to: UInt64(try elf.section(named: ".text").index))
            case .namesPastTheEnd: elf.set(.size, of: names, to: 0xffff_ffff)
            case .tooManyHeaders: elf.set(.sectionHeaderCount, to: 0xffff)
            }
        }
        let (run, _, services, _, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.services(services).isEmpty, "\(run)")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.contains(corruption.expected) == true, "\(found)")
        #expect(found.first?.message.contains("beehive_services") == true, "\(found)")
    }

    @Test("a second section header named beehive_services: only the first is read, and a diagnostic counts them")
    func sectionNamedTwice() throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("twice.so", in: folder, format: 2) { elf in
            let records = try elf.section(named: "beehive_services")
            let names = Int(elf.read(at: 62, width: 2))  // e_shstrndx
            // The last section after it (not the name table) takes its name: .symtab, .comment or the like.
            let other = try #require(elf.sections.last { $0.index > records.index && $0.index != names })
            elf.set(.name, of: other, to: UInt64(records.nameOffset))
        }
        let (run, _, services, modules, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.services(services).map(\.name) == ["Lab.AlphaService", "Lab.AlphaService[fast]"], "\(run)")
        #expect(run.modules(modules).map(\.name) == ["Lab.AlphaModule"])
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.hasPrefix("2 section headers carry the name beehive_services") == true, "\(found)")
    }

    @Test("beehive_services' sh_offset disagrees with its sh_addr: a diagnostic; the other sections are read")
    func sectionOffsetDisagrees() throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("moved.so", in: folder, format: 2) { elf in
            let records = try elf.section(named: "beehive_services")
            elf.set(.offset, of: records, to: records.offset + 16)
        }
        let (run, _, services, modules, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.services(services).isEmpty, "read from where the address says, or not at all: \(run)")
        #expect(run.modules(modules).map(\.name) == ["Lab.AlphaModule"])
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.hasPrefix("section beehive_services (index") == true)
        #expect(found.first?.message.contains("disagrees with its address") == true)
    }

    // MARK: - Notes

    @Test("a note naming 20 record sections: all 20 are read (the old scanner read at most 16)")
    func twentySections() throws {
        let folder = try LabFolder()
        let plugin = try folder.plugin("many.so", from: "many_sections.c", flags: ["-DLAB_SECTION_COUNT=20"])
        let (run, _, services, _, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(Set(run.services(services).map(\.name)) == Set((0..<20).map { "Lab.Many\($0)" }), "\(run)")
        #expect(run.diagnostics(diagnostics).isEmpty)
    }

    @Test("a note naming 70 record sections: 64 are read, and a diagnostic counts the 6 that were not")
    func seventySections() throws {
        let folder = try LabFolder()
        let plugin = try folder.plugin("many.so", from: "many_sections.c", flags: ["-DLAB_SECTION_COUNT=70"])
        let (run, _, services, _, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(Set(run.services(services).map(\.name)) == Set((0..<64).map { "Lab.Many\($0)" }), "\(run)")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.contains("more than 64 record sections") == true)
        #expect(found.first?.message.contains("6 were not read") == true)
    }

    @Test("a record section named with 150 bytes is read (the old scanner dropped names of 128 bytes or more)")
    func longSectionName() throws {
        let folder = try LabFolder()
        let plugin = try folder.plugin("long.so", from: "long_name.c")
        try #require(try ELFPatcher(contentsOf: plugin).sections.contains { $0.name.utf8.count == 150 })
        let (run, _, services, modules, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(
            run.services(services).map { "\($0.name) -> \($0.detail)" } == [
                "Lab.LongNameService -> Lab.LongNameServiceImpl"
            ], "\(run)")
        #expect(run.modules(modules).map(\.name) == ["Lab.LongNameModule"])
        #expect(run.diagnostics(diagnostics).isEmpty)
    }

    /// Which size field of the BeeHive note is made huge.
    enum NoteField: String, Sendable, CustomStringConvertible {
        case descriptorSize, nameSize
        var description: String { rawValue }
    }

    @Test(
        "the BeeHive note's size fields patched to 0x7fffffff: \"malformed note\", no crash",
        arguments: [NoteField.descriptorSize, .nameSize])
    func oversizedNoteField(_ field: NoteField) throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("big-note.so", in: folder) { elf in
            // The note's header: namesz, descsz, type (u32 each), at the start of .note.beehive.
            let note = try elf.section(named: ".note.beehive")
            elf.write(0x7fff_ffff, at: Int(note.offset) + (field == .nameSize ? 0 : 4), width: 4)
        }
        let (run, _, _, _, diagnostics) = try load(plugin)

        // The note that names the record sections is unreadable: the diagnostic is what is left to give.
        try #require(run.outcome.succeeded, "\(run)")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.hasPrefix("malformed note") == true)
        #expect(found.first?.message.contains("2147483647 bytes") == true)
    }

    // MARK: - libelf, loaded on demand

    @Test("libelf is loaded only when an image of format 2 is read, RTLD_LOCAL (not in the global scope)")
    func libelfOnDemand() throws {
        let folder = try LabFolder()
        let current = try folder.plugin("alpha.so", from: "alpha.c")
        let older = try folder.plugin("bravo.so", from: "bravo.c", format: 2)
        var script = LabScript()
        script.rescan()
        script.open(current)
        script.rescan()
        let before = script.libelf()
        script.open(older)
        script.rescan()
        let after = script.libelf()
        let services = script.services()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(before, "libelf") == "loaded:no global:no", "format 3 only: no file, no libelf: \(run)")
        #expect(run.value(after, "libelf") == "loaded:yes global:no", "format 2 read with libelf: \(run)")
        #expect(
            Set(run.services(services).map(\.name)) == [
                "Lab.AlphaService", "Lab.AlphaService[fast]", "Lab.BravoService", "Lab.BravoService[fast]",
            ], "\(run)")
        #expect(run.diagnostics(diagnostics).isEmpty, "\(run)")
    }

    @Test("an image of the Swift macros' format 2 (the expansion written out): its records register, read with libelf")
    func swiftFormat2() throws {
        let folder = try LabFolder()
        let plugin = try folder.swiftFormat2Plugin("libSwiftTwo.so")
        var script = LabScript()
        script.rescan()
        let before = script.libelf()
        script.open(plugin)
        script.rescan()
        let after = script.libelf()
        let services = script.services()
        let modules = script.modules()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.value(before, "libelf") == "loaded:no global:no", "\(run)")
        #expect(run.value(after, "libelf") == "loaded:yes global:no", "\(run)")
        #expect(
            run.services(services).map { "\($0.name) -> \($0.detail)" } == ["SwiftTwo.Clock -> SwiftTwo.SystemClock"],
            "\(run)")
        #expect(run.modules(modules).map(\.name) == ["SwiftTwo.StartModule"], "\(run)")
        #expect(run.diagnostics(diagnostics).isEmpty, "\(run)")
    }

    // MARK: - Format 3: records in memory

    /// A file that lies about a loaded image (format 2's tests above).
    enum Lie: String, Sendable, CustomStringConvertible, CaseIterable {
        case fifoAtThePath, headOverwritten, noSectionHeaders, sectionNameCorrupted, sectionTableCorrupted,
            sectionNamedTwice, sectionOffsetDisagrees
        var description: String { rawValue }
    }

    @Test(
        "format 3: a file that lies (FIFO, new head, bad section headers): every record registers, no diagnostic",
        arguments: Lie.allCases)
    func filesThatLie(_ lie: Lie) throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("lying.so", in: folder) { elf in
            let records = try elf.section(named: "beehive_services")
            switch lie {
            case .fifoAtThePath, .headOverwritten: break  // changed after it is loaded, below
            case .noSectionHeaders:
                elf.set(.sectionHeaderOffset, to: 0)
                elf.set(.sectionHeaderCount, to: 0)
                elf.set(.sectionNameTableIndex, to: 0)
            case .sectionNameCorrupted: elf.set(.name, of: records, to: 0xf_ffff)
            case .sectionTableCorrupted: elf.set(.sectionHeaderSize, to: 32)
            case .sectionNamedTwice:
                let names = Int(elf.read(at: 62, width: 2))
                let other = try #require(elf.sections.last { $0.index > records.index && $0.index != names })
                elf.set(.name, of: other, to: UInt64(records.nameOffset))
            case .sectionOffsetDisagrees: elf.set(.offset, of: records, to: records.offset + 16)
            }
        }
        var script = LabScript()
        script.open(plugin)
        if lie == .fifoAtThePath { script.replaceWithFIFO(plugin) }
        if lie == .headOverwritten { script.overwriteHead(plugin) }
        script.rescan()
        let services = script.services()
        let modules = script.modules()
        let diagnostics = script.diagnostics()
        let run = try PluginLab.run(script)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.services(services).map(\.name) == ["Lab.AlphaService", "Lab.AlphaService[fast]"], "\(run)")
        #expect(run.modules(modules).map(\.name) == ["Lab.AlphaModule"], "\(run)")
        #expect(run.diagnostics(diagnostics).isEmpty, "\(run)")
    }

    /// How a format-3 note's bounds of beehive_services lie.
    enum BoundsLie: String, Sendable, CustomStringConvertible, CaseIterable {
        /// The start points 2 GiB before the note: outside the image.
        case outside
        /// The start lies after the stop.
        case reversed
        var description: String { rawValue }
    }

    @Test(
        "format 3: the note's bounds of beehive_services lie: one diagnostic, nothing of it read, the others read",
        arguments: BoundsLie.allCases)
    func boundsLie(_ lie: BoundsLie) throws {
        let folder = try LabFolder()
        let plugin = try patchedPlugin("bounds.so", in: folder) { elf in
            // The note: namesz, descsz, type, "BeeHive\0", then the descriptor: version, count, entry size, and the
            // entries (kind, start, stop, reserved); the first entry is beehive_services'.
            let note = Int(try elf.section(named: ".note.beehive").offset)
            let entry = note + 20 + 12
            try #require(elf.read(at: note + 20, width: 4) == 3 && elf.read(at: entry, width: 4) == 0)
            switch lie {
            case .outside: elf.write(0x8000_0000, at: entry + 4, width: 4)
            case .reversed: elf.write(elf.read(at: entry + 8, width: 4) + 64, at: entry + 4, width: 4)
            }
        }
        let (run, _, services, modules, diagnostics) = try load(plugin)

        try #require(run.outcome.succeeded, "\(run)")
        #expect(run.services(services).isEmpty, "\(run)")
        #expect(run.modules(modules).map(\.name) == ["Lab.AlphaModule"], "the module section is read")
        let found = self.diagnostics(run, diagnostics, about: plugin)
        #expect(found.count == 1, "\(run)")
        #expect(found.first?.message.hasPrefix("section beehive_services (placed by the BeeHive note at") == true)
        let place = lie == .outside ? "outside the image's loaded segments" : "nowhere (it ends before it starts)"
        #expect(found.first?.message.contains(place) == true, "\(found)")
    }
}
