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

    init(_ kind: bh_kind) {
        switch kind {
        case BH_KIND_MODULES: self = .modules
        case BH_KIND_ROUTES: self = .routes
        case BH_KIND_TYPES: self = .types
        default: self = .services
        }
    }

    /// The section that `beehive.h` writes these records to unless told otherwise.
    public var defaultSectionName: String { RecordFormat.defaultSection(self) }
}
