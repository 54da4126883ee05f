#if Macros
import Foundation
import Testing

@testable import _BeeHiveMacrosPlugin

/// The macro plugin cannot import C targets, so it keeps a copy of the format's constants; this pins the copy to
/// the one definition, `CSupport/_BeeHiveFormat/include/bh_format.h`, read as text.
@Suite("The macro plugin's copy of the format agrees with bh_format.h")
struct FormatPinTests {
    /// The `#define NAME value` lines of `bh_format.h`, by name.
    static let header: [String: String] = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CSupport/_BeeHiveFormat/include/bh_format.h").path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var defines: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("#define ") {
            let fields = line.dropFirst("#define ".count).split(separator: " ", maxSplits: 1)
            guard fields.count == 2 else { continue }
            var value = fields[1].trimmingCharacters(in: .whitespaces)
            if let comment = value.range(of: "/*") {
                value = value[..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
            }
            defines[String(fields[0])] = value
        }
        return defines
    }()

    /// A string macro's value without its quotes.
    static func string(_ name: String) -> String? {
        guard let value = header[name], value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 else {
            return nil
        }
        return String(value.dropFirst().dropLast())
    }

    /// An integer macro's value (decimal or hexadecimal).
    static func integer(_ name: String) -> UInt64? {
        guard let value = header[name] else { return nil }
        return value.hasPrefix("0x") ? UInt64(value.dropFirst(2), radix: 16) : UInt64(value)
    }

    @Test("the header is found and read")
    func headerIsRead() {
        #expect(Self.header.count >= 20, "\(Self.header)")
    }

    @Test("the Swift records' section, kind, version and the format version of the macros")
    func swiftRecords() {
        #expect(Self.string("BH_FORMAT_SWIFT_TESTS_SECTION") == RecordBytes.swiftRecordsSection)
        #expect(Self.integer("BH_FORMAT_SWIFT_RECORD_KIND") == UInt64(RecordBytes.swiftRecordKind))
        #expect(Self.integer("BH_FORMAT_SWIFT_RECORD_VERSION") == UInt64(RecordBytes.swiftRecordVersion))
        #expect(Self.integer("BH_FORMAT_SWIFT_TYPED_LAYOUT") == UInt64(RecordBytes.swiftTypedLayout))
        #expect(Self.integer("BH_FORMAT_SWIFT_MACROS_VERSION") == UInt64(RecordBytes.formatVersion))
        #expect(RecordBytes.swiftRecordKindLiteral == "0x6268_6976")
        #expect(Array("bhiv".utf8).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } == RecordBytes.swiftRecordKind)
    }

    @Test("the sections of the JSON copies for the tool, and each kind's number")
    func jsonSections() {
        #expect(Self.string("BH_FORMAT_SWIFT_SERVICES_SECTION") == RecordBytes.Kind.service.jsonSection)
        #expect(Self.string("BH_FORMAT_SWIFT_MODULES_SECTION") == RecordBytes.Kind.module.jsonSection)
        #expect(Self.string("BH_FORMAT_SWIFT_ROUTES_SECTION") == RecordBytes.Kind.route.jsonSection)
        #expect(Self.string("BH_FORMAT_SWIFT_APIS_SECTION") == RecordBytes.Kind.api.jsonSection)
        #expect(Self.integer("BH_FORMAT_SWIFT_RECORD_KIND_SERVICE") == UInt64(RecordBytes.Kind.service.rawValue))
        #expect(Self.integer("BH_FORMAT_SWIFT_RECORD_KIND_MODULE") == UInt64(RecordBytes.Kind.module.rawValue))
        #expect(Self.integer("BH_FORMAT_SWIFT_RECORD_KIND_ROUTE") == UInt64(RecordBytes.Kind.route.rawValue))
        #expect(Self.integer("BH_FORMAT_SWIFT_RECORD_KIND_API") == UInt64(RecordBytes.Kind.api.rawValue))
        #expect(RecordBytes.Kind.allCases.map(\.rawValue) == [1, 2, 3, 4])
    }
}
#endif
