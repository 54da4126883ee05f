@_spi(Testing) internal import _BeeHiveDiscovery

extension TypedRecords {
    /// The typed records of one section whose accessors were not called yet: where they lie, the hive to tell when
    /// one fails, and each record's offset and accessor.
    ///
    /// The offsets and accessors are copied out of the section into memory of its own (the section's bytes may be a
    /// buffer its reader frees), as pairs of words: a Swift array of them would make the runtime instantiate its
    /// storage type at registration. Sections wait in a list for the same reason.
    final class PendingSection: ListNode {
        let imageID: UInt64
        let imagePath: String
        let section: String
        let sectionFileOffset: UInt64
        weak var reporter: Hive?
        /// The base address of the image that holds the accessors, and the loader's count of unloaded images when
        /// the records were added: once that count moves, the image must still be the one mapped there.
        let imageBase: UInt
        let unloads: UInt64
        /// The next section in the list of pending ones.
        var next: PendingSection?
        /// Pairs of words: a record's offset in the section, then its accessor's address.
        private let words: UnsafeMutableBufferPointer<UInt>

        /// The accessors of `section`'s well-formed entries (checked by the scanner: magic, layout version, an
        /// accessor inside the image's code); nil when it has none.
        init?(_ section: RecordSection, reporter: Hive?) {
            // Typed records of format 2 (magic, layout version, accessor), or Swift records of format 3 (kind,
            // version, accessor, record kind, typed layout).
            let isSwift = section.kind == .swiftRecords
            let size = isSwift ? RecordFormat.swiftRecordSize : RecordFormat.typedRecordSize
            let (magic, version) =
                isSwift
                ? (RecordFormat.swiftRecordKind, RecordFormat.swiftRecordVersion)
                : (_BeeHiveTypedRecord.magic, _BeeHiveTypedRecord.layoutVersion)
            let accessorOffset =
                isSwift ? RecordFormat.swiftRecordAccessorOffset : RecordFormat.typedRecordAccessorOffset
            let bytes = section.bytes
            let words = UnsafeMutableBufferPointer<UInt>.allocate(capacity: 2 * (bytes.count / size))
            var count = 0
            var offset = 0
            while offset + size <= bytes.count {
                defer { offset += size }
                let address = bytes.loadUnaligned(fromByteOffset: offset + accessorOffset, as: UInt.self)
                guard bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self) == magic,
                    bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) == version,
                    address != 0,
                    !isSwift
                        || bytes.loadUnaligned(
                            fromByteOffset: offset + RecordFormat.swiftRecordKindOffset, as: UInt.self)
                            != RecordFormat.swiftRecordKindAPI
                            && bytes.loadUnaligned(
                                fromByteOffset: offset + RecordFormat.swiftRecordLayoutOffset, as: UInt.self)
                                == RecordFormat.swiftTypedLayout
                else { continue }  // padding, a reported and zeroed entry, an API record (no type), another layout
                words[2 * count] = UInt(offset)
                words[2 * count + 1] = address
                count += 1
            }
            guard count > 0 else {
                words.deallocate()
                return nil
            }
            self.words = UnsafeMutableBufferPointer(rebasing: words[..<(2 * count)])
            imageID = section.imageID
            imagePath = section.imagePath
            self.section = section.sectionName
            sectionFileOffset = section.fileOffset
            self.reporter = reporter
            // The scanner checked that every accessor lies in this image's code: one look-up gives the image.
            imageBase = ImageScanner.imageBase(of: UnsafeRawPointer(bitPattern: words[1])!)
            unloads = ImageScanner.unloadedImageCount
        }

        deinit { words.deallocate() }

        /// Whether the image that held the accessors is still mapped where it was: no image was unloaded since they
        /// were added, or the image at the first accessor's address is still the one that was there.
        var isMapped: Bool {
            unloads == ImageScanner.unloadedImageCount
                || ImageScanner.imageBase(of: UnsafeRawPointer(bitPattern: words[1])!) == imageBase
        }

        /// How many well-formed entries the section holds.
        var count: Int { words.count / 2 }

        /// Calls `body` with each record's offset and accessor, in the section's order.
        func forEach(_ body: (_ offset: Int, _ accessor: _BeeHiveTypedRecord.Accessor) -> Void) {
            for pair in stride(from: 0, to: words.count, by: 2) {
                body(Int(words[pair]), unsafeBitCast(words[pair + 1], to: _BeeHiveTypedRecord.Accessor.self))
            }
        }
    }
}
