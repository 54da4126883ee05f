#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A section of records of a loaded image, read from the image's file.
///
/// The bytes stay valid as long as the section exists. A class, not a struct: an array of class references shares
/// the runtime's one array type for objects, where an array of a struct makes the runtime build that array's type
/// the first time (about 12 K instructions, once per program, at the first scan).
@_spi(Testing) public final class RecordSection: @unchecked Sendable {
    /// The image's file path: the path the kernel mapped (the main executable's real path).
    package let imagePath: String
    /// The loaded image's id, unique in the process and never reused (0 for sections made by hand).
    package let imageID: UInt64
    /// The section's name, e.g. `beehive_services`.
    package let sectionName: String
    /// What the records declare.
    package let kind: RecordKind
    /// The section's offset in the image file (`sh_offset`).
    package let fileOffset: UInt64
    /// The section's index in the image's section header table.
    package let sectionIndex: Int
    /// The section's bytes.
    package let bytes: UnsafeRawBufferPointer
    /// Whether the section owns `bytes`, a `malloc`ed block it frees when it goes away.
    private let ownsBytes: Bool

    /// Creates a section over `bytes`, which the caller keeps valid.
    @_spi(Testing) public init(
        imagePath: String, imageID: UInt64 = 0, sectionName: String, kind: RecordKind, fileOffset: UInt64 = 0,
        sectionIndex: Int = 0, bytes: UnsafeRawBufferPointer
    ) {
        self.imagePath = imagePath
        self.imageID = imageID
        self.sectionName = sectionName
        self.kind = kind
        self.fileOffset = fileOffset
        self.sectionIndex = sectionIndex
        self.bytes = bytes
        self.ownsBytes = false
    }

    /// Creates a section that owns `buffer`, a `malloc`ed block it frees when it goes away.
    init(
        imagePath: String, imageID: UInt64, sectionName: String, kind: RecordKind, fileOffset: UInt64,
        sectionIndex: Int, adopting buffer: UnsafeMutableRawBufferPointer
    ) {
        self.imagePath = imagePath
        self.imageID = imageID
        self.sectionName = sectionName
        self.kind = kind
        self.fileOffset = fileOffset
        self.sectionIndex = sectionIndex
        self.bytes = UnsafeRawBufferPointer(buffer)
        self.ownsBytes = true
    }

    deinit {
        if ownsBytes { free(UnsafeMutableRawPointer(mutating: bytes.baseAddress)) }
    }

    /// The records of the section, in order.
    ///
    /// Records are NUL-terminated; runs of NUL bytes between them are alignment padding and are
    /// skipped. A record that reaches the end of the section without a NUL is returned with
    /// `isTerminated == false`.
    @_spi(Testing) public var records: [RawRecord] {
        var result: [RawRecord] = []
        forEachRecord { result.append($0) }
        return result
    }

    /// Calls `body` with each record of the section, in order, without collecting them.
    @_spi(Testing) public func forEachRecord(_ body: (RawRecord) throws -> Void) rethrows {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        let count = bytes.count
        while offset < count {
            if bytes[offset] == 0 {
                offset += 1
                continue
            }
            let start = offset
            // The terminating NUL, found by memchr: a loop over the bytes cost ~6 instructions per byte.
            let end = memchr(base + start, 0, count - start).map { UnsafeRawPointer($0) - base } ?? count
            let slice = UnsafeRawBufferPointer(start: base + start, count: end - start)
            try body(RawRecord(offset: start, bytes: slice, isTerminated: end < count))
            offset = end + 1
        }
    }
}

/// One record's bytes, without its terminating NUL.
@_spi(Testing) public struct RawRecord: @unchecked Sendable {
    /// Creates a record over `bytes`, found at `offset` in its section.
    package init(offset: Int, bytes: UnsafeRawBufferPointer, isTerminated: Bool) {
        self.offset = offset
        self.bytes = bytes
        self.isTerminated = isTerminated
    }

    /// The record's byte offset from the start of its section.
    @_spi(Testing) public let offset: Int
    /// The record's bytes.
    @_spi(Testing) public let bytes: UnsafeRawBufferPointer
    /// Whether a NUL ended the record (false: it ran to the end of the section).
    @_spi(Testing) public let isTerminated: Bool

    /// A printable excerpt of the record for diagnostics: invalid UTF-8 is replaced, long records are cut.
    @_spi(Testing) public var excerpt: String {
        let limit = 120
        let text = String(decoding: bytes.prefix(limit), as: UTF8.self)
        return bytes.count > limit ? text + "…" : text
    }
}
