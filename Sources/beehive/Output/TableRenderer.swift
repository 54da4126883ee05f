@_spi(Testing) import _BeeHiveDiscovery

/// Renders a report as aligned text for a terminal: per image, a heading, then one table row per record,
/// then the malformed records and the problems, one line each.
struct TableRenderer {
    /// Whether to list archive members and images that have no records.
    var showsEmptyImages = false

    /// The text for `report`, ending with a newline.
    func render(_ report: InspectionReport) -> String {
        report.files.map(render).joined()
    }

    /// The text for one file: empty for a file that could not be read (reported on standard error instead).
    func render(_ file: InspectionReport.File) -> String {
        var out = ""
        guard file.error == nil else { return "" }
        for problem in file.problems { out += "\(file.path): error: \(problem)\n" }
        let shown = file.images.filter {
            showsEmptyImages || !$0.records.isEmpty || !$0.problems.isEmpty || $0.declaresAPIs != nil
                || $0.builtAgainstAPIs != nil
        }
        let recordCount = file.images.reduce(0) { $0 + $1.records.count }
        if file.format == .archive {
            let members = file.memberCount ?? 0
            let withRecords = file.images.filter { !$0.records.isEmpty }.count
            out +=
                "\(file.path): archive of \(members) member\(members == 1 ? "" : "s"), "
                + (withRecords == 0
                    ? "no BeeHive records\n"
                    : "\(recordCount) record\(recordCount == 1 ? "" : "s") in \(withRecords) of them\n")
        } else if shown.isEmpty, let image = file.images.first {
            out += "\(file.path): \(image.type.words), no BeeHive records\n"
        }
        for image in shown { out += render(image, of: file) }
        if let omitted = file.omittedRecords {
            out +=
                "\(file.path): \(omitted) more record\(omitted == 1 ? "" : "s") not listed: expected at most "
                + "\(InputFile.maximumRecords) per file\n"
        }
        out += "\n"
        return out
    }

    private func render(_ image: InspectionReport.Image, of file: InspectionReport.File) -> String {
        var out = "\(file.label(of: image)): \(image.type.words), \(image.records.count) record"
        out += image.records.count == 1 ? "" : "s"
        out += ", " + noteSummary(image) + ", " + symbolSummary(image.symbols) + "\n"
        let valid = image.validRecords
        if !valid.isEmpty {
            var rows = [
                [
                    "KIND", "SERVICE / ROUTE", "NAME", "TYPE", "LEVEL", "PRIORITY", "ASYNC", "SECTION+OFFSET",
                    "FILE OFFSET", "SOURCE",
                ]
            ]
            for record in valid { rows.append(row(record)) }
            out += Self.align(rows, indent: "  ")
        }
        for record in image.records {
            guard let error = record.error else { continue }
            let at = error.byteOffset.map { " at byte \($0) of the record" } ?? ""
            out +=
                "  malformed \(record.kind.oneRecord) record at \(record.place) (file offset \(record.filePlace)): "
                + "\(error.message)\(at) [\(error.code)]; record: \(record.text ?? "")\n"
        }
        for section in image.sections {
            if let error = section.error { out += "  error: \(error)\n" }
        }
        for problem in image.problems { out += "  error: \(problem)\n" }
        for (api, version) in (image.declaresAPIs ?? [:]).sorted(by: { $0.key < $1.key }) {
            out += "  declares the API of \(api), version \(version) (@BeeHiveAPI)\n"
        }
        for (api, version) in (image.builtAgainstAPIs ?? [:]).sorted(by: { $0.key < $1.key }) {
            out += "  built against the API of \(api), version \(version)\n"
        }
        return out
    }

    private func row(_ record: InspectionReport.Record) -> [String] {
        // The annotation's own file:line (format 2) when the record says; else the symbol table's source file.
        let written = record.file.map { "\($0):\(record.line ?? 0)" }
        let source = record.source.map { source in source.file.map { "\($0) (\(source.symbol))" } ?? source.symbol }
        let common = [record.place, record.filePlace, written ?? source ?? ""]
        switch record.kind {
        case .services:
            return ["service", record.service ?? "", record.name ?? "", record.implementation ?? "", "", "", ""]
                + common
        case .modules:
            return [
                "module", "", "", record.module ?? "", record.level.map(Self.levelName) ?? "",
                record.priority.map(String.init) ?? "", record.async.map(String.init) ?? "",
            ] + common
        case .routes:
            return ["route", record.route ?? "", "", record.handler ?? "", "", "", ""] + common
        case .types, .swiftRecords:
            return [record.kind.oneRecord, "", "", "", "", "", ""] + common  // never in a report (RecordDecoder)
        }
    }

    private func noteSummary(_ image: InspectionReport.Image) -> String {
        guard !image.notes.isEmpty else { return "no BeeHive note (default section names)" }
        let entries = image.notes.flatMap { note in
            note.entries.map { "\($0.kind.rawValue)=\($0.section)" }
        }
        var seen: Set<String> = []
        let unique = entries.filter { seen.insert($0).inserted }
        let versions = Set(image.notes.map(\.version)).sorted().map(String.init).joined(separator: ",")
        let count = image.notes.count
        return "\(count == 1 ? "note" : "\(count) notes") v\(versions) (\(unique.joined(separator: " ")))"
    }

    private func symbolSummary(_ symbols: InspectionReport.SymbolTable) -> String {
        switch symbols {
        case .full: "symbol table"
        case .dynamic: "dynamic symbols only"
        case .none: "no symbols"
        }
    }

    /// A level as `beehive.h` spells it: basic (0), normal (1), application (2), else the number.
    static func levelName(_ level: Int) -> String {
        switch level {
        case 0: "basic"
        case 1: "normal"
        case 2: "application"
        default: String(level)
        }
    }

    /// Left-aligned columns separated by two spaces; trailing spaces trimmed.
    static func align(_ rows: [[String]], indent: String) -> String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        // Columns empty in every row but the heading are dropped: a table of services has no LEVEL column.
        let kept = (0..<columns).filter { column in rows.dropFirst().contains { !$0[column].isEmpty } }
        var out = ""
        for row in rows {
            var line = indent
            for (position, column) in kept.enumerated() {
                let cell = row[column]
                line += cell
                if position < kept.count - 1 { line += String(repeating: " ", count: widths[column] - cell.count + 2) }
            }
            while line.last == " " { line.removeLast() }
            out += line + "\n"
        }
        return out
    }
}
