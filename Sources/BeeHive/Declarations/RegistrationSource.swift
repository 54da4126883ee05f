/// Where a registration came from: an annotation record in an image, an entry of a file, or code.
///
/// Printing a source gives a location a person can open: for a record, the annotation's `file:line` (when the
/// record says) then the image and section with the record's byte offset (as `objdump -s -j <section>` shows
/// it); the file and entry index; or the file and line of a call.
public struct RegistrationSource: Sendable, Hashable, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        case annotation(AnnotationSection, offset: Int, written: Written?)
        case image(path: String, imageID: UInt64)
        case file(path: String, index: Int?)
        case code(fileID: String, line: Int)
    }

    /// Where an annotation was written: its record's `"file"` and `"line"`.
    private struct Written: Sendable, Hashable {
        let file: String
        let line: Int
    }

    private let storage: Storage

    /// The image and section an annotation record lies in, in one object: the records of a section share it, so a
    /// source is copied with one retain where two strings took two (a registration's source is copied several times
    /// on its way into the registry). Compared and hashed by value.
    final class AnnotationSection: Sendable, Hashable {
        let image: String
        let imageID: UInt64
        let section: String
        /// The section's offset in the image file; 0 when unknown.
        let fileOffset: UInt64

        init(image: String, imageID: UInt64, section: String, fileOffset: UInt64) {
            self.image = image
            self.imageID = imageID
            self.section = section
            self.fileOffset = fileOffset
        }

        static func == (lhs: AnnotationSection, rhs: AnnotationSection) -> Bool {
            lhs === rhs
                || (lhs.image == rhs.image && lhs.imageID == rhs.imageID && lhs.section == rhs.section
                    && lhs.fileOffset == rhs.fileOffset)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(image)
            hasher.combine(imageID)
            hasher.combine(section)
            hasher.combine(fileOffset)
        }
    }

    /// A record at `offset` bytes into `section` of the image at `image`.
    /// - Parameters:
    ///   - image: The image's path.
    ///   - section: The section's name.
    ///   - offset: The record's offset from the start of the section.
    ///   - sectionFileOffset: The section's offset in the image file.
    ///   - imageID: The loaded image's id (see ``imageID``); 0 when unknown.
    ///   - file: The file the annotation was written in, when its record says (format version 2).
    ///   - line: The annotation's line in `file`.
    public static func annotation(
        image: String, section: String, offset: Int, sectionFileOffset: UInt64 = 0, imageID: UInt64 = 0,
        file: String? = nil, line: Int = 0
    ) -> Self {
        annotation(
            in: AnnotationSection(image: image, imageID: imageID, section: section, fileOffset: sectionFileOffset),
            offset: offset, file: file, line: line)
    }

    /// A record at `offset` bytes into the section `origin`, which the section's other records share.
    static func annotation(in origin: AnnotationSection, offset: Int, file: String? = nil, line: Int = 0) -> Self {
        Self(storage: .annotation(origin, offset: offset, written: file.map { Written(file: $0, line: line) }))
    }

    /// A whole loaded image (executable or shared library), for problems that concern no single record.
    /// - Parameters:
    ///   - path: The image's path.
    ///   - imageID: The loaded image's id (see ``imageID``); 0 when unknown.
    public static func image(_ path: String, imageID: UInt64 = 0) -> Self {
        Self(storage: .image(path: path, imageID: imageID))
    }

    /// Entry `index` (from 0) of the file at `path`, or the whole file when `index` is nil.
    public static func file(_ path: String, index: Int? = nil) -> Self {
        Self(storage: .file(path: path, index: index))
    }

    /// A call in code, at `fileID:line`.
    public static func code(fileID: String, line: Int) -> Self { Self(storage: .code(fileID: fileID, line: line)) }

    /// The image path, for an annotation record or a whole image.
    public var imagePath: String? {
        switch storage {
        case .annotation(let origin, _, _): origin.image
        case .image(let path, _): path
        default: nil
        }
    }

    /// The loaded image's id, for an annotation record or a whole image: every image the scanner finds gets
    /// one, never reused, so two images loaded one after the other from the same path (or at the same
    /// address) are told apart. 0 for sources made by hand.
    public var imageID: UInt64? {
        switch storage {
        case .annotation(let origin, _, _): origin.imageID
        case .image(_, let id): id
        default: nil
        }
    }

    /// The section name, for an annotation record.
    public var sectionName: String? {
        if case .annotation(let origin, _, _) = storage { return origin.section }
        return nil
    }

    /// The record's offset from the start of its section, for an annotation record.
    public var recordOffset: Int? {
        if case .annotation(_, let offset, _) = storage { return offset }
        return nil
    }

    /// The file the annotation was written in (`annotations.c`, `App/Tracker.swift`), when its record says.
    public var annotationFile: String? {
        if case .annotation(_, _, let written?) = storage { return written.file }
        return nil
    }

    /// The annotation's line in ``annotationFile``, when its record says.
    public var annotationLine: Int? {
        if case .annotation(_, _, let written?) = storage { return written.line }
        return nil
    }

    /// The file path, for a file entry.
    public var filePath: String? {
        if case .file(let path, _) = storage { return path }
        return nil
    }

    /// The entry index, for a file entry.
    public var entryIndex: Int? {
        if case .file(_, let index) = storage { return index }
        return nil
    }

    /// Whether the registration came from code.
    public var isCode: Bool {
        if case .code = storage { return true }
        return false
    }

    /// `fileID:line` of a registration in code.
    var callSite: String? {
        if case .code(let fileID, let line) = storage { return "\(fileID):\(line)" }
        return nil
    }

    public var description: String {
        switch storage {
        case .annotation(let origin, let offset, let written):
            let hex = "0x" + String(offset, radix: 16)
            let inFile =
                origin.fileOffset > 0
                ? ", file offset 0x" + String(origin.fileOffset + UInt64(offset), radix: 16) : ""
            let at = written.map { "\($0.file):\($0.line), " } ?? ""
            return "\(at)image \(origin.image), section \(origin.section), record at offset \(hex)\(inFile)"
        case .image(let path, _):
            return "image \(path)"
        case .file(let path, let index):
            return index.map { "file \(path), entry \($0)" } ?? "file \(path)"
        case .code(let fileID, let line):
            return "code \(fileID):\(line)"
        }
    }
}
