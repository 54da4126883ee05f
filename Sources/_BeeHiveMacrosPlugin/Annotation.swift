#if Macros
import SwiftSyntax
import SwiftSyntaxMacros

/// What one annotation writes: its JSON record (into `section`), the image note, and a typed record whose
/// accessor makes the `_BeeHiveTypedRecord` described by `typedRecord` when its reader's guard (the expected record
/// type and a stamp) is this copy of BeeHive's (layout version 3).
struct Annotation {
    /// The record's section: `beehive_services`, `beehive_mods` or `beehive_routes`.
    let section: String
    /// The record's keys and values, without `file` and `line`, which ``declarations(at:placement:in:)`` adds.
    let pairs: [(key: String, value: RecordBytes.Value)]
    /// A `_BeeHiveTypedRecord` expression: `.service(…)` or `.type(…)`, relative to `_BeeHiveTypedRecord`.
    let typedRecord: String

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

    /// The three `@section` declarations: the JSON record, the image note and the typed record.
    func declarations(
        at site: AnnotationSite, placement: Placement, in context: some MacroExpansionContext
    ) -> [DeclSyntax] {
        let record = RecordBytes.record(json(at: site))
        let note = RecordBytes.noteWords()
        let introducer = placement == .member ? "static let" : "private let"
        return [
            """
            @section("\(raw: section)") @used
            \(raw: introducer) \(context.makeUniqueName("record")): InlineArray<\(raw: record.count), UInt8> = \
            \(raw: RecordBytes.literal(record))
            """,
            """
            @section("\(raw: RecordBytes.noteSection)") @used
            \(raw: introducer) \(context.makeUniqueName("note")): InlineArray<\(raw: note.count), UInt32> = \
            \(raw: RecordBytes.literal(note))
            """,
            """
            @section("\(raw: RecordBytes.typesSection)") @used
            \(raw: introducer) \(context.makeUniqueName("typedRecord")): \
            (UInt32, UInt32, BeeHive::_BeeHiveTypedRecord.Accessor) = \
            (\(raw: RecordBytes.typedRecordMagicLiteral), \(raw: RecordBytes.typedRecordLayout), { out, type, hint in
                BeeHive::_BeeHiveTypedRecord.write(.\(raw: typedRecord), to: out, type: type, hint: hint)
            })
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
