#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// What one annotation writes (record format version 3): a Swift record in `swift5_tests`, whose accessor gives the
/// record's JSON text or makes the `_BeeHiveTypedRecord` described by `typedRecord`, depending on its reader's guard;
/// and a copy of the JSON for the `beehive` tool, which reads files.
struct Annotation {
    /// What the record declares.
    let kind: RecordBytes.Kind
    /// The record's keys and values, without `file` and `line`, which ``declarations(at:placement:in:)`` adds.
    let pairs: [(key: String, value: RecordBytes.Value)]
    /// A `_BeeHiveTypedRecord` expression: `.service(…)` or `.type(…)`, relative to `_BeeHiveTypedRecord`.
    let typedRecord: String
    /// For a service, the expression that gives the version of its API the code is compiled against (a call of
    /// `_beeHiveAPIVersion`, which `@BeeHiveAPI` overloads for its protocol); nil for other records.
    var apiMarker: String? = nil

    /// Where the declarations go, which decides how they are declared.
    enum Placement {
        /// Members of an extension or a type: `static let`.
        case member
        /// Globals at file scope: `private let`.
        case global
    }

    /// The JSON text of the record written at `site`.
    func json(at site: AnnotationSite) -> String {
        RecordBytes.json(pairs + [("file", .string(site.file)), ("line", .integer(Int64(site.line)))])
    }

    /// The two `@section` declarations: the tool's copy of the JSON, and the Swift record.
    func declarations(
        at site: AnnotationSite, placement: Placement, in context: some MacroExpansionContext
    ) -> [DeclSyntax] {
        let json = json(at: site)
        let record = RecordBytes.record(json)
        let introducer = placement == .member ? "static let" : "private let"
        return [
            """
            @section("\(raw: kind.jsonSection)") @used
            \(raw: introducer) \(context.makeUniqueName("json")): InlineArray<\(raw: record.count), UInt8> = \
            \(raw: RecordBytes.literal(record))
            """,
            """
            @section("\(raw: RecordBytes.swiftRecordsSection)") @used
            \(raw: introducer) \(context.makeUniqueName("record")): \
            (UInt32, UInt32, BeeHive::_BeeHiveTypedRecord.Accessor, UInt, UInt) = (
                \(raw: RecordBytes.swiftRecordKindLiteral), \(raw: RecordBytes.swiftRecordVersion),
                { out, type, hint in
                    BeeHive::_BeeHiveTypedRecord.write(
                        json: "\(raw: Self.swiftStringContents(json))",\(raw: apiMarker.map { " api: \($0)," } ?? "")
                        .\(raw: typedRecord), to: out, type: type, hint: hint)
                }, \(raw: kind.rawValue), \(raw: RecordBytes.swiftTypedLayout))
            """,
        ]
    }

    /// `text` as the contents of a Swift string literal.
    static func swiftStringContents(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "\\" || character == "\"" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
#endif
