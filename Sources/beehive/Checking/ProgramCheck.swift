/// The checks of `beehive check`: the files given are one program (an executable and the plugins it loads, or
/// the object files and archives it is linked from), and everything a running program would get wrong is found
/// before it runs.
struct ProgramCheck {
    /// The files, read with their type descriptors.
    let inputs: [InputFile]

    /// Every finding, problems and notes, in file order, then duplicates, then types.
    func findings() -> [Finding] {
        var findings: [Finding] = []
        let notedInObjects = sectionsNamedByObjectNotes()
        for input in inputs {
            let file = input.report
            for problem in file.problems {
                findings.append(
                    Finding(severity: .problem, code: "unreadableFile", location: file.path, message: problem))
            }
            for (index, image) in file.images.enumerated() {
                findings += imageFindings(
                    image, in: file, symbols: input.symbols[index], notedInObjects: notedInObjects)
            }
            if file.error == nil && file.images.allSatisfy({ $0.records.isEmpty }) && file.problems.isEmpty
                && file.images.allSatisfy({ $0.problems.isEmpty })
            {
                let what = file.format == .archive ? "archive of \(file.memberCount ?? 0) members" : "file"
                findings.append(
                    Finding(
                        severity: .note, code: "noRecords", location: file.path,
                        message: "this \(what) has no BeeHive records"))
            }
        }
        findings += duplicates()
        findings += types()
        return findings
    }

    // MARK: - One image

    private func imageFindings(
        _ image: InspectionReport.Image, in file: InspectionReport.File, symbols: InputFile.ImageSymbols,
        notedInObjects: Set<String>
    ) -> [Finding] {
        let label = file.label(of: image)
        var findings = image.problems.map {
            Finding(severity: .problem, code: "unreadableImage", location: label, message: $0)
        }
        // Records per section counted once (not a pass over every record per section: quadratic in a hostile
        // object of thousands of record sections).
        var recordsPerSection: [Int: Int] = [:]
        for record in image.records { recordsPerSection[record.sectionIndex, default: 0] += 1 }
        for section in image.sections {
            let location = "\(label): \(section.name)"
            let count = recordsPerSection[section.index] ?? 0
            if let error = section.error {
                findings.append(
                    Finding(severity: .problem, code: "unreadableSection", location: location, message: error))
                continue
            }
            guard count > 0 else { continue }
            let records = count == 1 ? "its record" : "its \(count) records"
            if !section.namedByNote && !(image.type == .object && notedInObjects.contains(section.name)) {
                findings.append(
                    Finding(
                        severity: .problem, code: "missingNote", location: location,
                        message:
                            "expected a BeeHive note naming section \(section.name); found "
                            + (image.notes.isEmpty ? "no note" : "notes naming other sections")
                            + ", so the load-time scanner does not read \(records) (unless BEEHIVE_SCAN=all): write "
                            + "the records with beehive.h, and do not define BH_NO_IMAGE_NOTE"))
            }
            if image.type.isLinked && !section.allocated {
                findings.append(
                    Finding(
                        severity: .problem, code: "sectionNotLoaded", location: location,
                        message:
                            "expected an allocated section (SHF_ALLOC); found flags "
                            + "0x\(String(section.flags, radix: 16)), "
                            + "so it is not loaded into memory and the scanner rejects \(records)"))
            }
            if image.type == .object && !section.retained {
                findings.append(
                    Finding(
                        severity: .problem, code: "droppedByLinker", location: location,
                        message:
                            "expected a retained section (SHF_GNU_RETAIN, flag 0x200000); found flags "
                            + "0x\(String(section.flags, radix: 16)), so a link with --gc-sections (every SwiftPM "
                            + "release build) drops \(records): write them with beehive.h and a compiler that knows "
                            + "__attribute__((retain)) (GCC 11, Clang 13 or later)"))
            }
        }
        if image.member != nil && !image.records.isEmpty && symbols.definedGlobals == 0 {
            findings.append(
                Finding(
                    severity: .problem, code: "droppedByLinker", location: label,
                    message:
                        "this archive member has \(image.records.count) records but defines no global symbol, so no "
                        + "link pulls it in and its records are left out: link the archive with --whole-archive, or "
                        + "make the program refer to a symbol that this file defines (an anchor)"))
        }
        for record in image.records {
            guard let error = record.error else { continue }
            let at = error.byteOffset.map { " at byte \($0) of the record" } ?? ""
            findings.append(
                Finding(
                    severity: .problem, code: error.code,
                    location: "\(label): \(record.place) (file offset \(record.filePlace))",
                    message: "\(error.message)\(at); record: \(record.text ?? "")"))
        }
        return findings
    }

    /// Section names that a note of some object file names: in a link, the note of one object covers the
    /// records of all.
    private func sectionsNamedByObjectNotes() -> Set<String> {
        var names: Set<String> = []
        for input in inputs {
            for image in input.report.images where image.type == .object {
                for note in image.notes { names.formUnion(note.entries.map(\.section)) }
            }
        }
        return names
    }

    // MARK: - Duplicates

    /// A valid record with where it is.
    private struct Placed {
        var record: InspectionReport.Record
        var location: String
    }

    private var placedRecords: [Placed] {
        inputs.flatMap { input in
            input.report.images.flatMap { image in
                image.validRecords.map { record in
                    Placed(
                        record: record,
                        location: "\(input.report.label(of: image)): \(record.place) (file offset \(record.filePlace))")
                }
            }
        }
    }

    private func duplicates() -> [Finding] {
        var first: [String: Placed] = [:]
        var findings: [Finding] = []
        for placed in placedRecords {
            let record = placed.record
            let key: String =
                switch record.kind {
                case .service: "service \(record.service ?? "")\u{0}\(record.name ?? "")"
                case .module: "module \(record.module ?? "")"
                case .route: "route \(record.route ?? "")"
                }
            guard let earlier = first[key] else {
                first[key] = placed
                continue
            }
            let what: String =
                switch record.kind {
                case .service:
                    "expected one implementation of \(record.summary.dropFirst("service ".count)); found "
                        + "\(record.implementation ?? "?") here and \(earlier.record.implementation ?? "?") at "
                        + "\(earlier.location); only one of them is registered"
                case .module:
                    "expected module \(record.module ?? "?") to be declared once; it is declared here and at "
                        + "\(earlier.location); only one declaration is kept"
                case .route:
                    "expected one handler for route \(record.route ?? "?"); found \(record.handler ?? "?") here and "
                        + "\(earlier.record.handler ?? "?") at \(earlier.location); only one of them is registered"
                }
            findings.append(
                Finding(severity: .problem, code: "duplicateRegistration", location: placed.location, message: what))
        }
        return findings
    }

    // MARK: - Types

    private func types() -> [Finding] {
        let defined = inputs.reduce(into: Set<String>()) { all, input in
            for symbols in input.symbols { all.formUnion(symbols.definedTypes) }
        }
        let images = inputs.flatMap { input in input.report.images.map { (input.report, $0) } }
        let linked = images.contains { $0.1.type.isLinked }
        let partial = images.filter { $0.1.symbols != .full }.map { file, image in
            "\(file.label(of: image)) has \(image.symbols == .none ? "no symbol table" : "only dynamic symbols") "
                + "(stripped)"
        }
        let whyUnknown: String? =
            if let first = partial.first {
                first + (partial.count > 1 ? " (and \(partial.count - 1) more)" : "")
            } else if !linked {
                "no executable or shared library among the files (object files and archives are parts of a program)"
            } else {
                nil
            }
        var findings: [Finding] = []
        var seen: Set<String> = []
        for placed in placedRecords {
            let record = placed.record
            guard let type = record.typeName, !defined.contains(type), seen.insert(type).inserted else { continue }
            let role: String =
                switch record.kind {
                case .service: "the implementation of \(record.summary.dropFirst("service ".count))"
                case .module: "a module"
                case .route: "the handler of \(record.route ?? "?")"
                }
            if let whyUnknown {
                findings.append(
                    Finding(
                        severity: .note, code: "typeNotChecked", location: placed.location,
                        message:
                            "type \(type) (\(role)): unknown, not checked: \(whyUnknown)"))
            } else {
                findings.append(
                    Finding(
                        severity: .problem, code: "missingType", location: placed.location,
                        message:
                            "expected type \(type) (\(role)) in the program; found no type descriptor for it in the "
                            + "symbol tables of the files given: misspelled, not module-qualified (Module.Type), in a "
                            + "file not given, or an internal struct or enum that the optimizer removed (make types "
                            + "named only by records public)"))
            }
        }
        return findings
    }
}
