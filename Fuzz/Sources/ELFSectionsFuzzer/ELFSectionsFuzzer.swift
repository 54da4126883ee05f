import CScannerSections
import FuzzCheck

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Fuzzes the load-time scanner's reader of image files (`CSupport/_BeeHiveScanner/elf_sections.c`, the same C files,
/// with libelf), and its in-memory locator of record format 3 (`notes.c`, `located.c`, through `bh_fuzz_locate`: see
/// `locate`):
/// `bh_scan_file` on the input as the file of a loaded image with records, through `bh_fuzz_scan_file`
/// (`fuzzing.c`). The image has load address 0, the four default record sections wanted, and the program headers of
/// the input's own table, so that the reader finds the file to be the loaded image and goes on to its section
/// headers and section name table.
///
/// Checked for every input, besides "no crash, no hang" under AddressSanitizer (every byte handed out is read):
/// - every queued section lies inside the input and is the one the section header at its index describes (offset,
///   size, address 0 + `sh_addr`), with a wanted name and that name's kind; one read from the file holds the input's
///   bytes at its offset; in one read from memory (typed records) every 16-byte entry is a valid record or zeros;
/// - every problem is a line of text about the image;
/// - the work is bounded by the wanted sections, not by the section headers: at most one section per wanted name
///   (of several headers with one name, only the first is read), at most three problems per wanted name (its
///   section's, its duplicates', its absence's) and one about the tables, and for a typed section one per 16-byte
///   entry and one for its tail;
/// - a second reading of the input gives the same sections and problems (a read of uninitialised memory would
///   not), apart from what concerns the typed section, whose records are copied from this process's memory at
///   whatever address the input gives: what lies there may change between the readings.
@main
enum ELFSectionsFuzzer {
    static func main() {
        check(MemoryLayout<Int>.size == 8, "expected a 64-bit process: the harness reads ELF64 section headers")
        runFuzzer(fuzzSections)
    }
}

/// The default record sections (`bh_format.h`), which the image wants, and their kinds.
let wantedKinds: [String: bh_format_kind] = [
    BH_FORMAT_SERVICES_SECTION: BH_FORMAT_KIND_SERVICES, BH_FORMAT_MODULES_SECTION: BH_FORMAT_KIND_MODULES,
    BH_FORMAT_ROUTES_SECTION: BH_FORMAT_KIND_ROUTES, BH_FORMAT_TYPES_SECTION: BH_FORMAT_KIND_TYPES,
]

/// The image's name in problems (`fuzzing.c`).
let imageLabel = "fuzz input"

/// The input being read, for the C callbacks of `locate` (they capture nothing).
nonisolated(unsafe) var currentInput = UnsafeRawBufferPointer(start: nil, count: 0)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzSections(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    currentInput = input
    let first = read(input)
    let second = read(input)
    check(
        first.comparable == second.comparable,
        "expected the same sections and problems from two readings; found \(first.comparable) then "
            + "\(second.comparable)")
    let located = locate(input)
    check(
        located == locate(input),
        "expected the same sections and problems from two readings of the input as a loaded image")
    return 0
}

/// Reads the input as a loaded image of record format 3 (`bh_fuzz_locate`: notes and sections from memory, the
/// input standing for the image's mapping) and checks what was found: every section lies inside the input, is
/// non-empty and not only zeros, holds the input's bytes at its address, and has a kind of the note; every problem is
/// a line of text about the image; the work is bounded by the input. Returns the sections and problems.
func locate(_ input: UnsafeRawBufferPointer) -> [String] {
    final class Found {
        var lines: [String] = []
        var sections = 0
    }
    let found = Found()
    var result = bh_fuzz_scan()
    let status = bh_fuzz_locate(
        input.baseAddress, input.count, Unmanaged.passUnretained(found).toOpaque(),
        { context, section in
            let found = Unmanaged<Found>.fromOpaque(context!).takeUnretainedValue()
            let section = section!.pointee
            let input = currentInput
            let start = UInt(bitPattern: section.address) &- UInt(bitPattern: input.baseAddress)
            check(
                start <= UInt(input.count) && UInt(section.size) <= UInt(input.count) - start && section.size > 0,
                "expected a located section inside the \(input.count)-byte input; found \(section.size) bytes at "
                    + "\(start)")
            check(
                [BH_FORMAT_KIND_SERVICES, BH_FORMAT_KIND_MODULES, BH_FORMAT_KIND_ROUTES, BH_FORMAT_KIND_SWIFT_RECORDS]
                    .contains(section.kind),
                "expected a located section of a record kind; found kind \(section.kind.rawValue)")
            let bytes = UnsafeRawBufferPointer(start: section.bytes, count: section.size)
            if section.kind == BH_FORMAT_KIND_SWIFT_RECORDS {
                checkSwiftRecords(bytes, from: UnsafeRawBufferPointer(rebasing: input[Int(start)...]))
            } else {
                check(
                    memcmp(bytes.baseAddress!, input.baseAddress! + Int(start), section.size) == 0,
                    "expected the located section to hold the input's bytes at its address")
            }
            check(bytes.contains { $0 != 0 }, "expected a section of only zeros to be left out")
            found.sections += 1
            found.lines.append("section \(String(cString: section.section_name))@\(start)+\(section.size)")
        },
        { context, problem in
            let message = String(cString: problem!.pointee.message)
            check(!message.isEmpty && !message.contains("\n"), "expected a problem of one line; found \(message)")
            check(String(cString: problem!.pointee.image_path) == imageLabel, "expected problems about the input")
            Unmanaged<Found>.fromOpaque(context!).takeUnretainedValue().lines.append(message)
        },
        &result)
    check(status == 0, "expected the input located; found status \(status), errno \(errno)")
    check(found.sections <= Int(BH_FORMAT_MAX_NOTE_SECTIONS), "expected at most one section per wanted name")
    check(
        found.lines.count <= input.count / 12 + Int(BH_FORMAT_MAX_NOTE_SECTIONS) + 8,
        "expected work bounded by the input; found \(found.lines.count) sections and problems")
    return found.lines
}

/// Checks a swift5_tests section as the locator hands it over: every 32-byte entry is the input's entry, if it is a
/// valid BeeHive record (kind "bhiv", version 3, record kind 1 to 3, an accessor inside an executable `PT_LOAD`
/// segment of the input's own program headers), or zeros.
func checkSwiftRecords(_ bytes: UnsafeRawBufferPointer, from original: UnsafeRawBufferPointer) {
    let size = Int(BH_FORMAT_SWIFT_RECORD_SIZE)
    let executable = executableSegments(currentInput)
    let base = UInt(bitPattern: currentInput.baseAddress)
    for offset in stride(from: 0, to: bytes.count - bytes.count % size, by: size) {
        let entry = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)])
        if entry.allSatisfy({ $0 == 0 }) { continue }
        check(
            entry.elementsEqual(original[offset..<(offset + size)]),
            "expected a Swift record handed out as the input holds it, at offset \(offset)")
        let accessor = entry.loadUnaligned(fromByteOffset: Int(BH_FORMAT_SWIFT_RECORD_ACCESSOR_OFFSET), as: UInt.self)
        let recordKind = entry.loadUnaligned(fromByteOffset: Int(BH_FORMAT_SWIFT_RECORD_KIND_OFFSET), as: UInt.self)
        check(
            entry.loadUnaligned(as: UInt32.self) == UInt32(BH_FORMAT_SWIFT_RECORD_KIND)
                && entry.loadUnaligned(fromByteOffset: 4, as: UInt32.self) == UInt32(BH_FORMAT_SWIFT_RECORD_VERSION)
                && (1...3).contains(recordKind),
            "expected only valid Swift records handed out; found one at offset \(offset)")
        guard let executable else { continue }
        check(
            executable.contains { accessor >= base &+ $0.start && accessor &- (base &+ $0.start) < $0.size },
            "expected a handed-out Swift record's accessor inside an executable segment; found 0x"
                + String(accessor, radix: 16))
    }
}

/// The executable `PT_LOAD` segments of the input's own program headers (start relative to the input, cut to it as
/// the locator cuts them, and size in memory); nil when the table is one this check does not read (`PN_XNUM`).
func executableSegments(_ input: UnsafeRawBufferPointer) -> [(start: UInt, size: UInt)]? {
    guard input.count >= 64 else { return [] }
    let phoff = input.loadUnaligned(fromByteOffset: 32, as: UInt64.self)
    let phnum = Int(input.loadUnaligned(fromByteOffset: 56, as: UInt16.self))
    guard phnum != 0xffff else { return nil }
    var segments: [(start: UInt, size: UInt)] = []
    for index in 0..<phnum {
        guard phoff <= UInt64(input.count), UInt64(input.count) - phoff >= UInt64(56 * (index + 1)) else { break }
        let at = Int(phoff) + 56 * index
        let type = input.loadUnaligned(fromByteOffset: at, as: UInt32.self)
        let flags = input.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)
        let vaddr = input.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)
        let memsz = input.loadUnaligned(fromByteOffset: at + 40, as: UInt64.self)
        guard type == 1, flags & 1 != 0 else { continue }
        segments.append((UInt(min(vaddr, UInt64(input.count))), UInt(memsz)))
    }
    return segments
}

/// Reads the input once and checks what was found.
func read(_ input: UnsafeRawBufferPointer) -> Reading {
    let reading = Reading(input)
    var result = bh_fuzz_scan()
    let status = bh_fuzz_scan_file(
        input.baseAddress, input.count, Unmanaged.passUnretained(reading).toOpaque(),
        { context, section in Unmanaged<Reading>.fromOpaque(context!).takeUnretainedValue().add(section!.pointee) },
        { context, problem in Unmanaged<Reading>.fromOpaque(context!).takeUnretainedValue().add(problem!.pointee) },
        &result)
    check(status == 0, "expected the input read; found status \(status), errno \(errno)")
    check(
        result.sections == reading.sections.count && result.problems == reading.problems.count,
        "expected the counts of what was handed out (\(reading.sections.count) sections, \(reading.problems.count) "
            + "problems); found \(result.sections) and \(result.problems)")
    check(
        result.phnum <= input.count / 56,
        "expected at most one program header per 56 bytes of input; found \(result.phnum)")
    check(
        result.typed_wanted != 0 || !reading.sections.contains { $0.kind == BH_FORMAT_KIND_TYPES.rawValue },
        "expected no typed section when none is wanted")
    check(
        Set(reading.sections.map(\.name)).count == reading.sections.count,
        "expected at most one section per wanted name; found \(reading.sections)")
    let bound = 4 * wantedKinds.count + 1 + reading.typedEntries
    check(
        reading.sections.count + reading.problems.count <= bound,
        "expected at most \(bound) sections and problems from \(input.count) bytes; found "
            + "\(reading.sections.count) sections, \(reading.problems.count) problems")
    check(Set(reading.imageIDs).count <= 1, "expected one image id in one reading; found \(Set(reading.imageIDs))")
    return reading
}

/// A section as two readings must agree on it.
struct Section: Equatable, CustomStringConvertible {
    var name: String
    var kind: UInt32
    var index: UInt32
    var offset: UInt64
    var size: Int
    var address: UInt
    var description: String { "\(name)#\(index)@\(offset)+\(size)" }
}

/// What one reading of the input found, checked as it is handed out.
final class Reading {
    let input: UnsafeRawBufferPointer
    var sections: [Section] = []
    var problems: [String] = []
    var imageIDs: [UInt64] = []
    /// For the bound: one problem per 16-byte entry of the typed sections, and one for each one's tail.
    var typedEntries = 0

    init(_ input: UnsafeRawBufferPointer) { self.input = input }

    /// What does not depend on this process's memory (the typed section's bytes come from it).
    var comparable: (sections: [Section], problems: [String]) {
        (
            sections.filter { $0.kind != BH_FORMAT_KIND_TYPES.rawValue },
            problems.filter { !$0.hasPrefix("section \(BH_FORMAT_TYPES_SECTION)") }
        )
    }

    func add(_ problem: bh_problem) {
        imageIDs.append(problem.image_id)
        check(
            problem.image_path != nil && String(cString: problem.image_path) == imageLabel,
            "expected problems about \"\(imageLabel)\"")
        check(problem.transient == 0, "expected no transient problem in a file read")
        guard let text = problem.message else { return check(false, "expected a problem's message; found NULL") }
        let message = String(cString: text)
        check(!message.isEmpty && !message.contains("\n"), "expected a problem of one line; found \(message)")
        problems.append(message)
    }

    func add(_ section: bh_section) {
        imageIDs.append(section.image_id)
        let name = String(cString: section.section_name)
        check(String(cString: section.image_path) == imageLabel, "expected sections of \"\(imageLabel)\"")
        check(
            wantedKinds[name]?.rawValue == section.kind.rawValue,
            "expected a wanted section with its kind; found \(name) of kind \(section.kind.rawValue)")
        let found = Section(
            name: name, kind: section.kind.rawValue, index: section.section_index, offset: section.file_offset,
            size: section.size, address: UInt(bitPattern: section.address))
        check(section.size > 0 && section.bytes != nil, "expected the bytes of a non-empty section; found \(found)")
        check(
            found.offset <= UInt64(input.count) && UInt64(found.size) <= UInt64(input.count) - found.offset,
            "expected section \(found) inside the \(input.count)-byte input")
        checkHeader(of: found)
        let bytes = UnsafeRawBufferPointer(start: section.bytes, count: section.size)
        if section.kind == BH_FORMAT_KIND_TYPES {
            checkTypedRecords(bytes, found)
        } else {
            check(
                memcmp(bytes.baseAddress!, input.baseAddress! + Int(found.offset), found.size) == 0,
                "expected section \(found) to hold the input's bytes at its offset")
        }
        sections.append(found)
    }

    /// The section header at the section's index, in the input's table (ELF64: e_shoff at 0x28; sh_addr, sh_offset
    /// and sh_size at 0x10, 0x18 and 0x20 of a 64-byte header), gives the section's address, offset and size.
    func checkHeader(of section: Section) {
        let tableOffset = input.loadUnaligned(fromByteOffset: 0x28, as: UInt64.self)
        let (at, overflow) = UInt64(section.index).multipliedReportingOverflow(by: 64)
        check(
            !overflow && tableOffset <= UInt64(input.count) && at <= UInt64(input.count) - tableOffset
                && UInt64(input.count) - tableOffset - at >= 64,
            "expected the header of section \(section) inside the input (table at \(tableOffset))")
        let header = Int(tableOffset + at)
        let address = input.loadUnaligned(fromByteOffset: header + 0x10, as: UInt64.self)
        let offset = input.loadUnaligned(fromByteOffset: header + 0x18, as: UInt64.self)
        let size = input.loadUnaligned(fromByteOffset: header + 0x20, as: UInt64.self)
        check(
            address == UInt64(section.address) && offset == section.offset && size == UInt64(section.size),
            "expected section \(section), at address \(section.address), as its header describes it: address "
                + "\(address), offset \(offset), size \(size)")
    }

    /// Typed records after the reader's check: every whole 16-byte entry is zeros or has the magic and layout
    /// version (the reader zeroes the others), and a tail shorter than an entry is zeros.
    func checkTypedRecords(_ bytes: UnsafeRawBufferPointer, _ section: Section) {
        let entry = Int(BH_FORMAT_TYPED_RECORD_SIZE)
        typedEntries += bytes.count / entry + 1
        var offset = 0
        while offset + entry <= bytes.count {
            let magic = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let layout = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let accessor = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            check(
                (magic == 0 && layout == 0 && accessor == 0)
                    || (magic == UInt32(BH_FORMAT_TYPED_RECORD_MAGIC)
                        && layout == UInt32(BH_FORMAT_TYPED_RECORD_LAYOUT)),
                "expected the typed record at \(offset) of \(section) valid or zeroed; found magic \(magic), "
                    + "layout \(layout)")
            offset += entry
        }
        check(bytes[offset...].allSatisfy { $0 == 0 }, "expected the tail of \(section) zeroed")
    }
}
