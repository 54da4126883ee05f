@_spi(Testing) import _BeeHiveDiscovery
import _BeeHiveInspect

/// A file given on the command line, read: its report, and what `check` needs to know besides.
struct InputFile: Sendable {
    /// What the file holds, as `inspect` reports it.
    var report: InspectionReport.File
    /// For each of `report.images`, what its symbol table says.
    var symbols: [ImageSymbols]

    /// What an image's symbol tables say, beyond the report.
    struct ImageSymbols: Sendable {
        /// The names of the Swift types whose type descriptor the image defines (`App.Outer.Impl`); empty unless
        /// type descriptors were asked for.
        var definedTypes: Set<String>
        /// The names of the Swift protocols whose protocol descriptor the image defines (`App.UserTrackService`);
        /// empty unless type descriptors were asked for.
        var definedProtocols: Set<String> = []
        /// How many global or weak symbols the image defines, when its symbol table was read.
        var definedGlobals: Int?
        /// Where the image defines `beehive_core_runtime_marker` itself (`.text+0x1a2b0`), as every copy of
        /// BeeHive's core does; nil when it does not, or type descriptors were not asked for.
        var runtimeMarker: String?
        /// The API versions the image declares (`@BeeHiveAPI`), from its `beehive_swift_apis` records.
        var declaredAPIs: [APIRecord] = []
        /// The versions of service APIs the image's code was compiled against, by protocol name, from the API
        /// markers in its read-only data.
        var builtAgainst: [String: APIVersion] = [:]
    }

    /// The most records of one file that are decoded and kept; the others are counted in
    /// `report.omittedRecords`. A real program has thousands; the limit bounds the tool's memory on hostile input.
    static let maximumRecords = 100_000

    /// Reads the file at `path`. Never fails: a file that cannot be read has `report.error` set.
    /// - Parameters:
    ///   - path: The file's path.
    ///   - typeDescriptors: Also read the symbol tables' Swift type descriptors (slower: whole symbol tables).
    ///   - recordLimit: How many records of the file to decode and keep at most.
    ///   - offline: The report to register, image by image, the record sections that the load-time scanner would
    ///     read (those a note names, loaded into memory or in an object file, and the JSON copies of the Swift
    ///     macros' records); nil for none.
    init(
        path: String, typeDescriptors: Bool = false, recordLimit: Int = InputFile.maximumRecords,
        registeringInto offline: OfflineReport? = nil
    ) {
        guard let file = bh_inspect_open(path, typeDescriptors ? Int32(BH_INSPECT_TYPE_DESCRIPTORS) : 0) else {
            report = InspectionReport.File(
                path: path, error: "cannot be read: out of memory", problems: [], images: [])
            symbols = []
            return
        }
        defer { bh_inspect_close(file) }
        let f = file.pointee
        var report = InspectionReport.File(path: path, problems: Self.strings(f.problems, f.problem_count), images: [])
        var symbols: [ImageSymbols] = []
        if let error = f.error {
            report.error = String(cString: error)
        } else {
            report.format = f.is_archive != 0 ? .archive : .elf
            if f.is_archive != 0 { report.memberCount = f.member_count }
            var budget = recordLimit
            var omitted = 0
            for i in 0..<f.image_count {
                let image = f.images[i]
                var converted = Self.image(
                    image, path: path, budget: &budget, omitted: &omitted, registeringInto: offline)
                let declaredAPIs = Self.strings(image.api_records, image.api_record_count).compactMap { json in
                    var json = json
                    return json.withUTF8 { try? APIRecord(RecordParser.parse(UnsafeRawBufferPointer($0))) }
                }
                let builtAgainst = Dictionary(
                    Self.strings(image.api_markers, image.api_marker_count).compactMap { APIVersion.parse(marker: $0) },
                    uniquingKeysWith: max)
                if !declaredAPIs.isEmpty {
                    converted.declaresAPIs = Dictionary(
                        declaredAPIs.map { ($0.api, $0.version.description) }, uniquingKeysWith: { first, _ in first })
                }
                if !builtAgainst.isEmpty { converted.builtAgainstAPIs = builtAgainst.mapValues(\.description) }
                // Archive members without a note, a record section or a problem say nothing: left out.
                if f.is_archive != 0 && converted.notes.isEmpty && converted.sections.isEmpty
                    && converted.problems.isEmpty && image.descriptor_count == 0
                {
                    continue
                }
                report.images.append(converted)
                let descriptors = Self.strings(image.descriptors, image.descriptor_count)
                symbols.append(
                    ImageSymbols(
                        definedTypes: Set(descriptors.compactMap(TypeDescriptorName.typeName(ofDescriptor:))),
                        definedProtocols: Set(descriptors.compactMap(TypeDescriptorName.protocolName(ofDescriptor:))),
                        definedGlobals: image.defined_globals < 0 ? nil : Int(image.defined_globals),
                        runtimeMarker: Self.runtimeMarker(of: image), declaredAPIs: declaredAPIs,
                        builtAgainst: builtAgainst))
            }
            if omitted > 0 { report.omittedRecords = omitted }
        }
        self.report = report
        self.symbols = symbols
    }

    private static func image(
        _ image: bh_inspect_image, path: String, budget: inout Int, omitted: inout Int,
        registeringInto offline: OfflineReport?
    ) -> InspectionReport.Image {
        let type: InspectionReport.ImageType =
            switch image.type {
            case BH_INSPECT_EXECUTABLE: .executable
            case BH_INSPECT_SHARED_LIBRARY: .sharedLibrary
            case BH_INSPECT_OBJECT: .object
            default: .other
            }
        let symbols: InspectionReport.SymbolTable =
            switch image.symbols {
            case BH_INSPECT_FULL_SYMBOLS: .full
            case BH_INSPECT_DYNAMIC_SYMBOLS: .dynamic
            default: .none
            }
        var result = InspectionReport.Image(
            member: image.member.map { String(cString: $0) }, type: type, symbols: symbols, notes: [], sections: [],
            records: [], problems: strings(image.problems, image.problem_count))
        for n in 0..<image.note_count {
            let note = image.notes[n]
            result.notes.append(
                .init(
                    section: Int(note.section_index), version: Int(note.version),
                    entries: (0..<note.entry_count).map { e in
                        .init(kind: RecordKind(note.entries[e].kind), section: String(cString: note.entries[e].section))
                    }))
        }
        var sources: [UInt32: [Int: InspectionReport.Source]] = [:]
        for s in 0..<image.record_symbol_count {
            let symbol = image.record_symbols[s]
            sources[symbol.section_index, default: [:]][Int(symbol.offset)] = .init(
                file: symbol.file.map { String(cString: $0) }, symbol: String(cString: symbol.name))
        }
        let label = image.member.map { "\(path)(\(String(cString: $0)))" } ?? path
        // The sections a process would register, read while their bytes are here.
        var registered: [RecordSection] = []
        var swiftCopies: [RecordSection] = []  // last, as a process reads swift5_tests after the note's sections
        let imageID = offline?.nextImageID() ?? 0
        let imagePath =
            offline == nil ? label : OfflineReport.imagePath(path, member: image.member.map { String(cString: $0) })
        for s in 0..<image.section_count {
            let section = image.sections[s]
            // A section of 0x00 bytes only holds no record: beehive.h's NUL byte, which makes sure every record
            // section exists so that the note's bounds are defined (record format 3).
            if section.error == nil, let bytes = section.bytes,
                UnsafeRawBufferPointer(start: bytes, count: Int(section.size)).allSatisfy({ $0 == 0 })
            {
                continue
            }
            let name = String(cString: section.name)
            result.sections.append(
                .init(
                    name: name, kind: RecordKind(section.kind), index: Int(section.index),
                    fileOffset: section.file_offset,
                    size: section.size, address: type == .object ? nil : section.address, flags: section.flags,
                    allocated: section.flags & Self.allocFlag != 0, retained: section.flags & Self.retainFlag != 0,
                    namedByNote: section.named_by_note != 0, error: section.error.map { String(cString: $0) }))
            guard let bytes = section.bytes else { continue }
            let view = RecordSection(
                imagePath: label, sectionName: name, kind: RecordKind(section.kind), fileOffset: section.file_offset,
                sectionIndex: Int(section.index),
                bytes: UnsafeRawBufferPointer(start: bytes, count: Int(section.size)))
            let (records, beyond) = RecordDecoder.records(
                of: view, sources: sources[section.index] ?? [:], limit: max(0, budget))
            budget -= records.count
            omitted += beyond
            result.records += records
            // A process reads the Swift macros' records through their `swift5_tests` entries, whose accessors only
            // it can call; the tool reads the JSON copies of the same records instead, which no note names.
            let isSwiftCopy = RecordFormat.swiftJSONSections.contains { $0.name == name }
            if offline != nil, section.named_by_note != 0 || isSwiftCopy,
                type == .object || section.flags & Self.allocFlag != 0
            {
                let readable =
                    RecordSection(
                        imagePath: imagePath, imageID: imageID, sectionName: name, kind: RecordKind(section.kind),
                        fileOffset: section.file_offset, sectionIndex: Int(section.index), bytes: view.bytes)
                if isSwiftCopy { swiftCopies.append(readable) } else { registered.append(readable) }
            }
        }
        offline?.hive.registerRecords(of: registered + swiftCopies)
        return result
    }

    /// Where `image` defines the runtime marker: its section and the offset there, or nil when it does not.
    private static func runtimeMarker(of image: bh_inspect_image) -> String? {
        guard image.defines_runtime_marker != 0 else { return nil }
        let offset = "0x\(String(image.runtime_marker_offset, radix: 16))"
        guard let section = image.runtime_marker_section else { return "offset \(offset) of an unnamed section" }
        return "\(String(cString: section))+\(offset)"
    }

    /// `SHF_ALLOC`: the section is loaded into memory.
    static let allocFlag: UInt64 = 0x2
    /// `SHF_GNU_RETAIN`: a link with `--gc-sections` keeps the section.
    static let retainFlag: UInt64 = 0x20_0000

    private static func strings(_ array: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) -> [String] {
        guard let array else { return [] }
        return (0..<count).compactMap { array[$0].map { String(cString: $0) } }
    }
}
