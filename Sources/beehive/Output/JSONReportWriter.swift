import FoundationEssentials

/// Writes the JSON report of `inspect` one file at a time, one record at a time: the text is the one
/// `JSONEncoder` writes for a whole ``InspectionReport`` (pretty-printed, keys sorted, slashes not escaped), but
/// only one record is ever encoded in memory, so that memory does not grow with the number of records.
final class JSONReportWriter {
    /// Where the text goes, piece by piece.
    let write: (String) -> Void
    private let encoder: JSONEncoder
    private var filesWritten = 0

    /// A writer that hands its text to `write`.
    init(write: @escaping (String) -> Void) {
        self.write = write
        encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    }

    /// Writes the start of the report.
    func begin() {
        write("{\n  \"files\" : [\n")
    }

    /// Writes one file (its images and records one by one).
    func write(_ file: InspectionReport.File) throws {
        write(filesWritten == 0 ? "    {\n" : ",\n    {\n")
        filesWritten += 1
        let indent = "      "
        var fields: [(String, () throws -> Void)] = []
        if let error = file.error { fields.append(("error", { try self.value(error, indent) })) }
        if let format = file.format { fields.append(("format", { try self.value(format, indent) })) }
        fields.append(
            ("images", { try self.array(file.images, indent) { image, inner in try self.image(image, inner) } }))
        if let count = file.memberCount { fields.append(("memberCount", { try self.value(count, indent) })) }
        if let count = file.omittedRecords { fields.append(("omittedRecords", { try self.value(count, indent) })) }
        fields.append(("path", { try self.value(file.path, indent) }))
        fields.append(("problems", { try self.value(file.problems, indent) }))
        try object(fields, indent)
        write("\n    }")
    }

    /// Writes the end of the report.
    func end() {
        write("\n  ],\n  \"version\" : \(InspectionReport.currentVersion)\n}\n")
    }

    // MARK: - Pieces

    /// An image as an object whose first line is at `base`.
    private func image(_ image: InspectionReport.Image, _ base: String) throws {
        let indent = base + "  "
        var fields: [(String, () throws -> Void)] = []
        if let member = image.member { fields.append(("member", { try self.value(member, indent) })) }
        fields.append(("notes", { try self.value(image.notes, indent) }))
        fields.append(("problems", { try self.value(image.problems, indent) }))
        fields.append(
            ("records", { try self.array(image.records, indent) { record, inner in try self.value(record, inner) } }))
        fields.append(("sections", { try self.value(image.sections, indent) }))
        fields.append(("symbols", { try self.value(image.symbols, indent) }))
        fields.append(("type", { try self.value(image.type, indent) }))
        write("{\n")
        try object(fields, indent)
        write("\n" + base + "}")
    }

    /// The fields of an object, keys given in sorted order, each `"key" : value`, separated by commas.
    private func object(_ fields: [(String, () throws -> Void)], _ indent: String) throws {
        for (index, (key, body)) in fields.enumerated() {
            write((index == 0 ? "" : ",\n") + indent + "\"\(key)\" : ")
            try body()
        }
    }

    /// An array whose elements are written one by one.
    private func array<Element: Encodable>(
        _ elements: [Element], _ indent: String, element: (Element, String) throws -> Void
    ) throws {
        guard !elements.isEmpty else { return try value(elements, indent) }
        write("[\n")
        for (index, item) in elements.enumerated() {
            write(index == 0 ? indent + "  " : ",\n" + indent + "  ")
            try element(item, indent + "  ")
        }
        write("\n" + indent + "]")
    }

    /// One value, encoded alone, its first line after a key at `indent` and its other lines indented to match.
    private func value(_ value: some Encodable, _ indent: String) throws {
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        // JSON strings hold no raw newline, so every newline of the text is between two of its lines.
        // JSONEncoder leaves the line inside an empty array blank: it stays blank.
        write(text.replacing("\n", with: "\n" + indent).replacing("\n" + indent + "\n", with: "\n\n"))
    }
}
