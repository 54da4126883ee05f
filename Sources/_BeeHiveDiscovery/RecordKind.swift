import _BeeHiveScanner

/// What the records of a section declare.
public enum RecordKind: String, Sendable, Hashable, CaseIterable {
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

    init(_ kind: bh_kind) {
        switch kind {
        case BH_KIND_MODULES: self = .modules
        case BH_KIND_ROUTES: self = .routes
        case BH_KIND_TYPES: self = .types
        case BH_KIND_SWIFT_RECORDS: self = .swiftRecords
        default: self = .services
        }
    }

    /// Whether the section's entries have accessors that make typed records (``TypedRecords`` keeps them).
    package var hasAccessors: Bool { self == .types || self == .swiftRecords }

    /// The section that `beehive.h` writes these records to unless told otherwise.
    public var defaultSectionName: String { RecordFormat.defaultSection(self) }
}
