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

    @Test("section names, note owner, type, section and version")
    func noteAndSections() {
        #expect(Self.string("BH_FORMAT_SERVICES_SECTION") == RecordBytes.servicesSection)
        #expect(Self.string("BH_FORMAT_MODULES_SECTION") == RecordBytes.modulesSection)
        #expect(Self.string("BH_FORMAT_ROUTES_SECTION") == RecordBytes.routesSection)
        #expect(Self.string("BH_FORMAT_TYPES_SECTION") == RecordBytes.typesSection)
        #expect(Self.string("BH_FORMAT_NOTE_SECTION") == RecordBytes.noteSection)
        #expect(Self.string("BH_FORMAT_NOTE_OWNER") == RecordBytes.noteOwner)
        #expect(Self.integer("BH_FORMAT_NOTE_TYPE") == UInt64(RecordBytes.noteType))
        #expect(Self.integer("BH_FORMAT_SWIFT_MACROS_VERSION") == UInt64(RecordBytes.formatVersion))
    }

    @Test("the note's kinds, types= included")
    func noteKinds() {
        #expect(Self.string("BH_FORMAT_SERVICES_PREFIX") == RecordBytes.notePrefixes.services)
        #expect(Self.string("BH_FORMAT_MODULES_PREFIX") == RecordBytes.notePrefixes.modules)
        #expect(Self.string("BH_FORMAT_ROUTES_PREFIX") == RecordBytes.notePrefixes.routes)
        #expect(Self.string("BH_FORMAT_TYPES_PREFIX") == RecordBytes.notePrefixes.types)
    }

    @Test("the typed record's magic and layout version")
    func typedRecord() {
        #expect(Self.integer("BH_FORMAT_TYPED_RECORD_MAGIC") == UInt64(RecordBytes.typedRecordMagic))
        #expect(Self.integer("BH_FORMAT_TYPED_RECORD_LAYOUT") == UInt64(RecordBytes.typedRecordLayout))
        #expect(RecordBytes.typedRecordMagicLiteral == "0x5254_4842")
    }
}
#endif
