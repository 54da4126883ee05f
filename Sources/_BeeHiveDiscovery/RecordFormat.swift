internal import _BeeHiveFormat

/// The record format's constants, read from `bh_format.h` (target `_BeeHiveFormat`), where they are defined once
/// for `beehive.h`, the scanner, the tool and Swift (`Docs/RecordFormat.md`).
package enum RecordFormat {
    /// The format versions readers accept.
    package static let versions = UInt32(BH_FORMAT_OLDEST_VERSION)...UInt32(BH_FORMAT_NEWEST_VERSION)
    /// The format version writers write.
    package static let version = UInt32(BH_FORMAT_NEWEST_VERSION)
    /// The image note's owner ("BeeHive") and type.
    package static let noteOwner = BH_FORMAT_NOTE_OWNER
    package static let noteType = UInt32(BH_FORMAT_NOTE_TYPE)
    /// The section that holds the image note in object files.
    package static let noteSection = BH_FORMAT_NOTE_SECTION

    /// The first field of every typed record: "BHTR" read as a little-endian `UInt32`.
    package static let typedRecordMagic = UInt32(BH_FORMAT_TYPED_RECORD_MAGIC)
    /// The layout version of typed records and of the value their accessors make.
    package static let typedRecordLayout = UInt32(BH_FORMAT_TYPED_RECORD_LAYOUT)
    /// The size of a typed record, in bytes.
    package static let typedRecordSize = Int(BH_FORMAT_TYPED_RECORD_SIZE)
    /// Where a typed record's accessor lies in it.
    package static let typedRecordAccessorOffset = Int(BH_FORMAT_TYPED_RECORD_ACCESSOR_OFFSET)

    /// The first field of a Swift record (format version 3): "bhiv" read as a big-endian FourCC.
    package static let swiftRecordKind = UInt32(BH_FORMAT_SWIFT_RECORD_KIND)
    /// The version of Swift records this library reads and its macros write.
    package static let swiftRecordVersion = UInt32(BH_FORMAT_SWIFT_RECORD_VERSION)
    /// The size of a Swift record, where its accessor lies in it, and where its record kind does.
    package static let swiftRecordSize = Int(BH_FORMAT_SWIFT_RECORD_SIZE)
    package static let swiftRecordAccessorOffset = Int(BH_FORMAT_SWIFT_RECORD_ACCESSOR_OFFSET)
    package static let swiftRecordKindOffset = Int(BH_FORMAT_SWIFT_RECORD_KIND_OFFSET)
    /// Where a Swift record says the layout of the typed value its accessor writes, and the layout this reader reads
    /// (`bh_format.h`): an accessor of another layout is asked for its text only.
    package static let swiftRecordLayoutOffset = Int(BH_FORMAT_SWIFT_RECORD_LAYOUT_OFFSET)
    package static let swiftTypedLayout = UInt(BH_FORMAT_SWIFT_TYPED_LAYOUT)
    /// The record kind of an API record (`@BeeHiveAPI`): no typed record, a protocol's version.
    package static let swiftRecordKindAPI = UInt(BH_FORMAT_SWIFT_RECORD_KIND_API)
    /// The sections that hold the JSON of Swift records for the `beehive` tool, by the kind of their records.
    package static let swiftJSONSections: [(name: String, kind: RecordKind)] = [
        (BH_FORMAT_SWIFT_SERVICES_SECTION, .services), (BH_FORMAT_SWIFT_MODULES_SECTION, .modules),
        (BH_FORMAT_SWIFT_ROUTES_SECTION, .routes),
    ]

    /// The section a kind's records go to unless a note names another.
    package static func defaultSection(_ kind: RecordKind) -> String {
        switch kind {
        case .services: BH_FORMAT_SERVICES_SECTION
        case .modules: BH_FORMAT_MODULES_SECTION
        case .routes: BH_FORMAT_ROUTES_SECTION
        case .types: BH_FORMAT_TYPES_SECTION
        case .swiftRecords: BH_FORMAT_SWIFT_TESTS_SECTION
        }
    }

    /// The prefix of a kind's entries in the image note: `services=`, …
    package static func notePrefix(_ kind: RecordKind) -> String {
        switch kind {
        case .services: BH_FORMAT_SERVICES_PREFIX
        case .modules: BH_FORMAT_MODULES_PREFIX
        case .routes: BH_FORMAT_ROUTES_PREFIX
        case .types: BH_FORMAT_TYPES_PREFIX
        case .swiftRecords: ""  // found through the Swift runtime, never named by a note
        }
    }
}
