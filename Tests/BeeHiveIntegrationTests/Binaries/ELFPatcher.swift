import Foundation

/// A 64-bit little-endian ELF file in memory, with just enough structure to corrupt it on purpose: the file
/// header, the program headers, the section headers and their names. Every change is a write of one field in
/// place; nothing moves.
struct ELFPatcher {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Program header types and flags the tests use.
    static let loadSegment: UInt32 = 1  // PT_LOAD
    static let noteSegment: UInt32 = 4  // PT_NOTE
    static let readable: UInt32 = 4  // PF_R

    /// A field of the file header: its offset and width in bytes.
    enum HeaderField {
        case sectionHeaderOffset, sectionHeaderSize, sectionHeaderCount, sectionNameTableIndex

        var layout: (offset: Int, width: Int) {
            switch self {
            case .sectionHeaderOffset: (40, 8)  // e_shoff
            case .sectionHeaderSize: (58, 2)  // e_shentsize
            case .sectionHeaderCount: (60, 2)  // e_shnum
            case .sectionNameTableIndex: (62, 2)  // e_shstrndx
            }
        }
    }

    /// A field of a program header (Elf64_Phdr).
    enum SegmentField {
        case type, flags, offset, address, fileSize, memorySize

        var layout: (offset: Int, width: Int) {
            switch self {
            case .type: (0, 4)
            case .flags: (4, 4)
            case .offset: (8, 8)
            case .address: (16, 8)
            case .fileSize: (32, 8)
            case .memorySize: (40, 8)
            }
        }
    }

    /// A field of a section header (Elf64_Shdr).
    enum SectionField {
        case name, type, flags, address, offset, size, link

        var layout: (offset: Int, width: Int) {
            switch self {
            case .name: (0, 4)
            case .type: (4, 4)
            case .flags: (8, 8)
            case .address: (16, 8)
            case .offset: (24, 8)
            case .size: (32, 8)
            case .link: (40, 4)
            }
        }
    }

    /// One program header.
    struct Segment {
        let index: Int
        let headerOffset: Int
        let type: UInt32
        let flags: UInt32
        let offset: UInt64
        let address: UInt64
        let fileSize: UInt64
        let memorySize: UInt64

        /// Whether the file-backed part of this segment holds `[address, address + size)`.
        func holds(address start: UInt64, size: UInt64) -> Bool {
            start >= address && start + size <= address + fileSize
        }
    }

    /// One section header and its name.
    struct Section {
        let index: Int
        let headerOffset: Int
        let nameOffset: UInt32
        let name: String
        let flags: UInt64
        let address: UInt64
        let offset: UInt64
        let size: UInt64
    }

    private(set) var bytes: [UInt8]

    /// Reads an ELF file; throws unless it is a 64-bit little-endian ELF file.
    init(contentsOf path: String) throws {
        bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count >= 64, bytes[0..<4] == [0x7f, 0x45, 0x4c, 0x46], bytes[4] == 2, bytes[5] == 1 else {
            throw Failure(description: "\(path) is not a 64-bit little-endian ELF file")
        }
    }

    /// Writes the bytes to `path`, executable like a linker's output.
    func write(to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    // MARK: - Reading

    func read(at offset: Int, width: Int) -> UInt64 {
        (0..<width).reduce(UInt64(0)) { value, i in value | UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
    }

    var segments: [Segment] {
        let start = Int(read(at: 32, width: 8))  // e_phoff
        let size = Int(read(at: 54, width: 2))  // e_phentsize
        return (0..<Int(read(at: 56, width: 2))).map { index in  // e_phnum
            let at = start + index * size
            return Segment(
                index: index, headerOffset: at, type: UInt32(read(at: at, width: 4)),
                flags: UInt32(read(at: at + 4, width: 4)), offset: read(at: at + 8, width: 8),
                address: read(at: at + 16, width: 8), fileSize: read(at: at + 32, width: 8),
                memorySize: read(at: at + 40, width: 8))
        }
    }

    var sections: [Section] {
        let start = Int(read(at: 40, width: 8))  // e_shoff
        let size = Int(read(at: 58, width: 2))  // e_shentsize
        let count = Int(read(at: 60, width: 2))  // e_shnum
        let names = Int(read(at: 62, width: 2))  // e_shstrndx
        guard start > 0, count > names else { return [] }
        let table = Int(read(at: start + names * size + 24, width: 8))
        return (0..<count).map { index in
            let at = start + index * size
            let nameOffset = UInt32(read(at: at, width: 4))
            let name = bytes[(table + Int(nameOffset))...].prefix { $0 != 0 }
            return Section(
                index: index, headerOffset: at, nameOffset: nameOffset, name: String(decoding: name, as: UTF8.self),
                flags: read(at: at + 8, width: 8), address: read(at: at + 16, width: 8),
                offset: read(at: at + 24, width: 8), size: read(at: at + 32, width: 8))
        }
    }

    /// The section called `name`; throws when there is none.
    func section(named name: String) throws -> Section {
        guard let section = sections.first(where: { $0.name == name }) else {
            throw Failure(description: "no section \(name); found \(sections.map(\.name))")
        }
        return section
    }

    /// The PT_LOAD segment whose file-backed part holds the section.
    func loadSegment(holding section: Section) throws -> Segment {
        guard
            let segment = segments.first(where: {
                $0.type == Self.loadSegment && $0.holds(address: section.address, size: section.size)
            })
        else { throw Failure(description: "no PT_LOAD segment holds section \(section.name)") }
        return segment
    }

    /// The PT_NOTE segment that holds the section (a note section).
    func noteSegment(holding section: Section) throws -> Segment {
        guard
            let segment = segments.first(where: {
                $0.type == Self.noteSegment && section.address >= $0.address
                    && section.address + section.size <= $0.address + $0.memorySize
            })
        else { throw Failure(description: "no PT_NOTE segment holds section \(section.name)") }
        return segment
    }

    // MARK: - Writing

    mutating func write(_ value: UInt64, at offset: Int, width: Int) {
        for i in 0..<width { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
    }

    mutating func set(_ field: HeaderField, to value: UInt64) {
        write(value, at: field.layout.offset, width: field.layout.width)
    }

    mutating func set(_ field: SegmentField, of segment: Segment, to value: UInt64) {
        write(value, at: segment.headerOffset + field.layout.offset, width: field.layout.width)
    }

    mutating func set(_ field: SectionField, of section: Section, to value: UInt64) {
        write(value, at: section.headerOffset + field.layout.offset, width: field.layout.width)
    }
}
