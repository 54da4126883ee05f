/// A section of records in a loaded image, read in place from the image's memory.
///
/// The bytes stay valid while the image stays loaded.
public struct RecordSection: @unchecked Sendable {
    /// The image's file path (the main executable's real path, not `/proc/self/exe`).
    public let imagePath: String
    /// The section's name, e.g. `beehive_services`.
    public let sectionName: String
    /// What the records declare.
    public let kind: RecordKind
    /// The section's offset in the image file (`sh_offset`).
    public let fileOffset: UInt64
    /// The section's index in the image's section header table.
    public let sectionIndex: Int
    /// The section's bytes in memory.
    public let bytes: UnsafeRawBufferPointer

    /// Creates a section over `bytes`.
    public init(
        imagePath: String, sectionName: String, kind: RecordKind, fileOffset: UInt64 = 0, sectionIndex: Int = 0,
        bytes: UnsafeRawBufferPointer
    ) {
        self.imagePath = imagePath
        self.sectionName = sectionName
        self.kind = kind
        self.fileOffset = fileOffset
        self.sectionIndex = sectionIndex
        self.bytes = bytes
    }

    /// The records of the section, in order.
    ///
    /// Records are NUL-terminated; runs of NUL bytes between them are alignment padding and are
    /// skipped. A record that reaches the end of the section without a NUL is returned with
    /// `isTerminated == false`.
    public var records: [RawRecord] {
        var result: [RawRecord] = []
        var offset = 0
        let count = bytes.count
        while offset < count {
            if bytes[offset] == 0 {
                offset += 1
                continue
            }
            let start = offset
            while offset < count && bytes[offset] != 0 { offset += 1 }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
            result.append(RawRecord(offset: start, bytes: slice, isTerminated: offset < count))
            offset += 1
        }
        return result
    }
}

/// One record's bytes, without its terminating NUL.
public struct RawRecord: @unchecked Sendable {
    /// Creates a record over `bytes`, found at `offset` in its section.
    public init(offset: Int, bytes: UnsafeRawBufferPointer, isTerminated: Bool) {
        self.offset = offset
        self.bytes = bytes
        self.isTerminated = isTerminated
    }

    /// The record's byte offset from the start of its section.
    public let offset: Int
    /// The record's bytes.
    public let bytes: UnsafeRawBufferPointer
    /// Whether a NUL ended the record (false: it ran to the end of the section).
    public let isTerminated: Bool

    /// A printable excerpt of the record for diagnostics: invalid UTF-8 is replaced, long records are cut.
    public var excerpt: String {
        let limit = 120
        let text = String(decoding: bytes.prefix(limit), as: UTF8.self)
        return bytes.count > limit ? text + "…" : text
    }
}
