@_spi(Testing) import _BeeHiveDiscovery

@testable import BeeHive

/// Swift records (format 3) as the scanner hands them over, built by hand around an accessor of the tests: what
/// suites that register a typed record without an annotated image use (the ThreadSanitizer build among them).
enum SwiftRecordSection {
    /// What `hive` parses from a section of one record whose accessor is `accessor`, read as image `imageID`'s (the
    /// caller removes that image's typed records when done).
    static func parse(
        _ accessor: _BeeHiveTypedRecord.Accessor, imageID: UInt64, in hive: Hive
    ) -> (parsed: Hive.ParsedRecords, problems: [Diagnostic]) {
        var parsed = Hive.ParsedRecords()
        var problems: [Diagnostic] = []
        bytes(accessor: accessor).withUnsafeBytes { buffer in
            hive.parse(
                RecordSection(
                    imagePath: "test", imageID: imageID, sectionName: "swift5_tests", kind: .swiftRecords,
                    bytes: buffer),
                into: &parsed, problems: &problems)
        }
        return (parsed, problems)
    }

    /// A `swift5_tests` section: a zeroed entry (another library's), then one record of kind `recordKind` whose
    /// accessor is `accessor` and whose typed value has the layout `layout` (this BeeHive's unless said).
    static func bytes(
        recordKind: UInt = 1, accessor: _BeeHiveTypedRecord.Accessor, layout: UInt = RecordFormat.swiftTypedLayout
    ) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 64)
        withUnsafeBytes(of: RecordFormat.swiftRecordKind.littleEndian) { bytes.replaceSubrange(32..<36, with: $0) }
        withUnsafeBytes(of: RecordFormat.swiftRecordVersion.littleEndian) { bytes.replaceSubrange(36..<40, with: $0) }
        let address = UInt(bitPattern: unsafeBitCast(accessor, to: UnsafeRawPointer.self))
        withUnsafeBytes(of: address) { bytes.replaceSubrange(40..<48, with: $0) }
        withUnsafeBytes(of: recordKind) { bytes.replaceSubrange(48..<56, with: $0) }
        withUnsafeBytes(of: layout) { bytes.replaceSubrange(56..<64, with: $0) }
        return bytes
    }
}
