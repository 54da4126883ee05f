import CInspectReader
import FuzzCheck
@_spi(Testing) import _BeeHiveDiscovery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Fuzzes the `beehive` tool's reader of files on disk (`CSupport/_BeeHiveInspect`, the same C file), as the tool
/// uses it: `bh_inspect_open` with type descriptors, then every record section split and parsed by the library.
///
/// The input is a whole file: an ELF executable, library or object, or an `ar` archive of them (the corpus has
/// each, with records, notes and symbols). Checked for every input, besides "no crash, no hang" under
/// AddressSanitizer (every string and byte the reader hands out is read):
/// - a file is either unreadable (one error line, no image) or read (no error);
/// - every section whose bytes were read lies inside the file and has no error; one whose bytes were not has one;
/// - every note entry, problem and symbol is a string of one line;
/// - the records of each section tile its bytes, and each parses or fails with an offset inside the record;
/// - the work is bounded: at most one image per 60 bytes of input (an archive member header), and every count
///   fits in the file.
@main
enum ELFInspectFuzzer {
    static func main() { runFuzzer(fuzzInspect) }
}

/// Where each input is written: the reader takes a path.
let inputPath: String = {
    let folder = "/dev/shm/beehive-fuzz-\(getpid())"
    mkdir(folder, 0o700)
    return folder + "/input"
}()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzInspect(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let fd = open(inputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    check(fd >= 0, "expected to create \(inputPath); errno \(errno)")
    var written = 0
    while written < size {
        let count = write(fd, data! + written, size - written)
        check(count > 0, "expected to write the input; errno \(errno)")
        written += count
    }
    close(fd)
    guard let file = bh_inspect_open(inputPath, Int32(BH_INSPECT_TYPE_DESCRIPTORS)) else { return 0 }
    defer { bh_inspect_close(file) }
    checkFile(file.pointee, size: size)
    return 0
}

func checkFile(_ file: bh_inspect_file, size: Int) {
    check(file.size == UInt64(size), "expected the file's size \(size); found \(file.size)")
    checkLines(file.problems, file.problem_count, "file problem")
    if let error = file.error {
        checkLine(error, "file error")
        check(file.image_count == 0, "expected no image in an unreadable file; found \(file.image_count)")
        return
    }
    check(file.image_count <= size / 60 + 1, "expected at most one image per 60 bytes; found \(file.image_count)")
    for i in 0..<file.image_count { checkImage(file.images[i], size: size) }
}

func checkImage(_ image: bh_inspect_image, size: Int) {
    if let member = image.member { checkLine(member, "member name") }
    checkLines(image.problems, image.problem_count, "image problem")
    checkLines(image.descriptors, image.descriptor_count, "type descriptor")
    for n in 0..<image.note_count {
        let note = image.notes[n]
        for e in 0..<note.entry_count { checkLine(note.entries[e].section, "note entry") }
    }
    for s in 0..<image.record_symbol_count {
        let symbol = image.record_symbols[s]
        checkLine(symbol.name, "symbol name")
        if let file = symbol.file { checkLine(file, "symbol file") }
    }
    for s in 0..<image.section_count {
        let section = image.sections[s]
        checkLine(section.name, "section name")
        guard let bytes = section.bytes else {
            check(section.error != nil, "expected an error for section \(s) whose bytes were not read; found none")
            checkLine(section.error, "section error")
            continue
        }
        check(section.error == nil, "expected no error for section \(s) whose bytes were read")
        check(
            section.file_offset <= UInt64(size) && section.size <= UInt64(size) - section.file_offset,
            "expected section \(s) (offset \(section.file_offset), \(section.size) bytes) inside the \(size)-byte file")
        let buffer = UnsafeRawBufferPointer(start: bytes, count: Int(section.size))
        let kind: RecordKind =
            switch section.kind {
            case BH_FORMAT_KIND_MODULES: .modules
            case BH_FORMAT_KIND_ROUTES: .routes
            default: .services
            }
        let view = RecordSection(imagePath: "fuzz", sectionName: "fuzz", kind: kind, bytes: buffer)
        var end = 0
        view.forEachRecord { record in
            check(record.offset >= end, "expected records in order, apart; found one at \(record.offset) after \(end)")
            end = record.offset + record.bytes.count
            check(end <= buffer.count, "expected the record at \(record.offset) inside the section")
            do throws(RecordError) {
                _ = try RecordParser.parse(record)
            } catch {
                if let offset = error.byteOffset {
                    check(offset <= record.bytes.count, "expected the error's offset \(offset) inside the record")
                }
            }
        }
    }
}

/// Every string of an array is one line.
func checkLines(_ array: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ what: String) {
    guard count > 0 else { return }
    check(array != nil, "expected \(count) \(what)s; found no array")
    for i in 0..<count { checkLine(array![i], what) }
}

/// A string the reader hands out: present, and one line (read whole, so AddressSanitizer sees every byte).
func checkLine(_ text: UnsafePointer<CChar>?, _ what: String) {
    guard let text else { return check(false, "expected a \(what); found NULL") }
    let length = strlen(text)
    check(memchr(text, 0x0A, length) == nil, "expected a \(what) of one line; found \(String(cString: text))")
}
