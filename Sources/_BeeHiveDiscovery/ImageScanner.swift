import _BeeHiveScanner

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Finds the record sections of every loaded image: a Swift view of the C scanner.
///
/// A scanner remembers the images it has scanned: each image is scanned once, and a scan when no
/// image was loaded or unloaded since the last one returns at once.
package final class ImageScanner: @unchecked Sendable {
    private let handle: OpaquePointer
    private let owned: Bool

    /// What one scan found.
    package struct Batch: Sendable {
        /// Record sections of images scanned for the first time.
        package var sections: [RecordSection] = []
        /// Problems with images.
        package var problems: [ImageProblem] = []
        /// Images that were unloaded since the last scan (only images that delivered sections).
        package var unloadedImages: [LoadedImage] = []
    }

    /// A loaded image: its path and an id that no other image of this process ever gets.
    package struct LoadedImage: Sendable, Hashable {
        /// The path the kernel mapped (absolute), or the loader's name when it is unknown.
        package let path: String
        /// The image's id, unique in the process and never reused.
        package let id: UInt64
    }

    /// A problem with one image: it could not be opened, a note or section header is malformed, ….
    package struct ImageProblem: Sendable {
        /// The image.
        package let image: LoadedImage
        /// What was expected and what was found.
        package let message: String
        /// Whether the cause can pass (too many open files): the image is tried again by the next scan.
        package let isTransient: Bool
    }

    /// Counters of the scans done so far.
    package struct Statistics: Sendable, Hashable {
        /// Scans done.
        package let scans: Int
        /// Scans that ended in the first callback: no image added or removed.
        package let shortCircuitScans: Int
        /// Images visited by the last full walk.
        package let imagesSeen: Int
        /// Images scanned for the first time, over all scans.
        package let imagesScanned: Int
        /// Of those, images with a BeeHive note.
        package let imagesMarked: Int
        /// Of those, images whose files were opened to read their section headers.
        package let imagesOpened: Int
        /// Images that were unloaded.
        package let imagesRemoved: Int
        /// Record sections found.
        package let sectionsFound: Int
        /// Duration of the last scan, in nanoseconds (for the startup scanner after first use: the quick
        /// rescan of the first drain, not the walk before `main`; see ``firstScanNanoseconds``).
        package let lastScanNanoseconds: UInt64
        /// Duration of all scans, in nanoseconds.
        package let totalScanNanoseconds: UInt64
        /// Duration of the first scan (for the startup scanner, the walk before `main`), in nanoseconds.
        package let firstScanNanoseconds: UInt64
        /// Time spent opening images' files and reading their sections, in nanoseconds.
        package let openNanoseconds: UInt64
    }

    /// Creates a scanner that has seen no image yet.
    /// - Parameters:
    ///   - scanAllImages: open every image's file, not only those with a BeeHive note.
    ///   - sections: the record sections to read, by name; nil for every section. The others are neither copied
    ///     from memory nor read from a file.
    package init(scanAllImages: Bool = false, keepingOnly sections: [String]? = nil) {
        handle = bh_scanner_create(scanAllImages ? Int32(BH_SCAN_ALL_IMAGES) : 0)
        owned = true
        if let sections { Self.keep(only: sections, in: handle) }
    }

    private static func keep(only sections: [String], in handle: OpaquePointer) {
        // strdup'd names: the scanner copies them again. Short of memory, it reads every section (the hive still
        // registers only those named).
        let names = sections.map { strdup($0) }
        defer { names.forEach { free($0) } }
        names.map { UnsafePointer($0) }.withUnsafeBufferPointer {
            _ = bh_scanner_keep_only(handle, $0.baseAddress, $0.count)
        }
    }

    private init(adopting handle: OpaquePointer) {
        self.handle = handle
        owned = false
    }

    deinit {
        if owned { bh_scanner_destroy(handle) }
    }

    /// The scanner that ran from a constructor before `main`, or a new one if the startup scan was
    /// switched off (`BEEHIVE_SCAN=off`).
    package static let startup: ImageScanner = {
        if let handle = bh_startup_scanner() { return ImageScanner(adopting: handle) }
        return ImageScanner()
    }()

    /// Scans the images not scanned yet, then returns everything found since the last call.
    ///
    /// Images of Swift code loaded since the last scan are pinned first (``pinSwiftImages()``).
    package func scan() -> Batch {
        Self.pinSwiftImages()
        bh_scanner_scan(handle)
        return drain()
    }

    /// Returns everything found since the last call, without scanning.
    package func drain() -> Batch {
        guard bh_scanner_has_pending(handle) != 0 else { return Batch() }
        final class Box { var batch = Batch() }
        let box = Box()
        withExtendedLifetime(box) {
            bh_scanner_drain(
                handle, Unmanaged.passUnretained(box).toOpaque(),
                { context, section in
                    guard let context, let section = section?.pointee else { return }
                    let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                    box.batch.sections.append(
                        RecordSection(
                            imagePath: String(cString: section.image_path),
                            imageID: section.image_id,
                            sectionName: String(cString: section.section_name),
                            kind: RecordKind(section.kind),
                            fileOffset: section.file_offset,
                            sectionIndex: Int(section.section_index),
                            adopting: UnsafeMutableRawBufferPointer(start: section.bytes, count: section.size)))
                },
                { context, problem in
                    guard let context, let problem = problem?.pointee else { return }
                    let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                    box.batch.problems.append(
                        ImageProblem(
                            image: LoadedImage(path: String(cString: problem.image_path), id: problem.image_id),
                            message: String(cString: problem.message), isTransient: problem.transient != 0))
                },
                { context, path, id in
                    guard let context, let path else { return }
                    let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                    box.batch.unloadedImages.append(LoadedImage(path: String(cString: path), id: id))
                })
        }
        return box.batch
    }

    /// Keeps every loaded image of Swift code (one that hands its metadata to the Swift runtime) mapped for the life of the process
    /// (`RTLD_NODELETE`): the Swift runtime keeps pointers into the metadata of every image it has seen, so unmapping
    /// one would crash the next type or conformance look-up. Images of C code only are left alone. Cheap when nothing
    /// was loaded since the last call; never called under the loader's lock.
    /// - Returns: How many images were pinned now.
    @discardableResult
    package static func pinSwiftImages() -> Int { Int(bh_pin_swift_images()) }

    /// How many images of Swift code BeeHive has pinned in this process.
    package static var pinnedImageCount: Int { Int(bh_pinned_image_count()) }

    /// How many images the dynamic loader has loaded so far; it grows with every `dlopen`.
    ///
    /// A type that was not found may be found once this has changed.
    package static var loadedImageCount: UInt64 { bh_loaded_image_count() }

    /// How many images the dynamic loader has unloaded in this process so far: while it stays the same, every
    /// image seen loaded is still loaded.
    package static var unloadedImageCount: UInt64 { bh_unloaded_image_count() }

    /// The base address of the loaded image that holds `address`, or 0 when no loaded image holds it.
    package static func imageBase(of address: UnsafeRawPointer) -> UInt { UInt(bh_image_base(address)) }

    /// An address inside the main program (its program headers).
    package static var mainProgramAddress: UnsafeRawPointer? { bh_main_program_address() }

    /// An address inside the image `id` as this scanner last saw it loaded, or nil when it knows no such image. The
    /// image may have been unloaded since: a look-up made with it must hold when no loaded image holds the address.
    package func address(ofImage id: UInt64) -> UnsafeRawPointer? { bh_scanner_image_address(handle, id) }

    /// The counters of the scans done so far.
    package var statistics: Statistics {
        let s = bh_scanner_stats(handle)
        return Statistics(
            scans: Int(s.scans), shortCircuitScans: Int(s.scans_short_circuit), imagesSeen: Int(s.images_seen),
            imagesScanned: Int(s.images_new), imagesMarked: Int(s.images_marked), imagesOpened: Int(s.images_opened),
            imagesRemoved: Int(s.images_removed), sectionsFound: Int(s.sections_found),
            lastScanNanoseconds: s.last_scan_ns, totalScanNanoseconds: s.total_scan_ns,
            firstScanNanoseconds: s.first_scan_ns, openNanoseconds: s.open_ns)
    }
}
