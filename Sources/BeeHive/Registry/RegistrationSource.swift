/// Where a registration came from: an annotation record in an image, an entry of a file, or code.
///
/// Printing a source gives a location a person can open: the image and section with the record's
/// byte offset (as `objdump -s -j <section>` shows it), the file and entry index, or the file and line.
public struct RegistrationSource: Sendable, Hashable, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        case annotation(image: String, section: String, offset: Int, fileOffset: UInt64)
        case image(path: String)
        case file(path: String, index: Int?)
        case code(fileID: String, line: Int)
    }

    private let storage: Storage

    /// A record at `offset` bytes into `section` of the image at `image`.
    /// - Parameters:
    ///   - image: The image's path.
    ///   - section: The section's name.
    ///   - offset: The record's offset from the start of the section.
    ///   - sectionFileOffset: The section's offset in the image file.
    public static func annotation(image: String, section: String, offset: Int, sectionFileOffset: UInt64 = 0) -> Self {
        Self(storage: .annotation(image: image, section: section, offset: offset, fileOffset: sectionFileOffset))
    }

    /// A whole loaded image (executable or shared library), for problems that concern no single record.
    public static func image(_ path: String) -> Self { Self(storage: .image(path: path)) }

    /// Entry `index` (from 0) of the file at `path`, or the whole file when `index` is nil.
    public static func file(_ path: String, index: Int? = nil) -> Self {
        Self(storage: .file(path: path, index: index))
    }

    /// A call in code, at `fileID:line`.
    public static func code(fileID: String, line: Int) -> Self { Self(storage: .code(fileID: fileID, line: line)) }

    /// The image path, for an annotation record or a whole image.
    public var imagePath: String? {
        switch storage {
        case .annotation(let image, _, _, _): image
        case .image(let path): path
        default: nil
        }
    }

    /// The section name, for an annotation record.
    public var sectionName: String? {
        if case .annotation(_, let section, _, _) = storage { return section }
        return nil
    }

    /// The record's offset from the start of its section, for an annotation record.
    public var recordOffset: Int? {
        if case .annotation(_, _, let offset, _) = storage { return offset }
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

    public var description: String {
        switch storage {
        case .annotation(let image, let section, let offset, let fileOffset):
            let hex = "0x" + String(offset, radix: 16)
            let inFile = fileOffset > 0 ? ", file offset 0x" + String(fileOffset + UInt64(offset), radix: 16) : ""
            return "image \(image), section \(section), record at offset \(hex)\(inFile)"
        case .image(let path):
            return "image \(path)"
        case .file(let path, let index):
            return index.map { "file \(path), entry \($0)" } ?? "file \(path)"
        case .code(let fileID, let line):
            return "code \(fileID):\(line)"
        }
    }
}
