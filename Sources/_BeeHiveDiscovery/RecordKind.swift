package import _BeeHiveFormat

/// What the records of a section declare: the one Swift spelling of a record kind, for the runtime and the `beehive`
/// tool (whose reports write it as its raw value, or as ``oneRecord`` for a record). Its C spelling is
/// `bh_format_kind` (`bh_format.h`), which ``init(_:)`` reads.
@_spi(Testing) public enum RecordKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// Service records: `{"<service>":"<impl>"}` or `{"service":…,"impl":…,"name":…}`.
    case services
    /// Module records: `"<module>"` or `{"module":…,"level":…,"priority":…,"async":…}`.
    case modules
    /// Route records: `{"route":…,"handler":…}`.
    case routes
    /// Typed records of the Swift macros: 16 bytes each, with an accessor (read from memory, not parsed as JSON).
    case types
    /// Records of the Swift macros (format version 3): 32-byte entries of `swift5_tests`, each with an accessor that
    /// gives the record's JSON text and its typed record (found in memory, not parsed as they are).
    case swiftRecords

    /// The kind of the C format's `bh_format_kind`, as the scanner and the tool's reader give it.
    package init(_ kind: bh_format_kind) {
        switch kind {
        case BH_FORMAT_KIND_MODULES: self = .modules
        case BH_FORMAT_KIND_ROUTES: self = .routes
        case BH_FORMAT_KIND_TYPES: self = .types
        case BH_FORMAT_KIND_SWIFT_RECORDS: self = .swiftRecords
        default: self = .services
        }
    }

    /// Whether the section's entries have accessors that make typed records (``TypedRecords`` keeps them).
    package var hasAccessors: Bool { self == .types || self == .swiftRecords }

    /// What one record of the kind is called, in the singular: "service", "module", "route", "type", "swiftRecord".
    package var oneRecord: String { String(rawValue.dropLast()) }

    /// The section that `beehive.h` writes these records to unless told otherwise.
    package var defaultSectionName: String { RecordFormat.defaultSection(self) }
}
