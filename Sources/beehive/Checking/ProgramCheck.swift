import BeeHive
@_spi(Testing) import _BeeHiveDiscovery

/// The checks of `beehive check`: the files given are one program (an executable and the plugins it loads, or
/// the object files and archives it is linked from), and everything a running program would get wrong is found
/// before it runs.
struct ProgramCheck {
    /// The files, read with their type descriptors.
    let inputs: [InputFile]
    /// Groups of files that are alternatives (versions of one plugin, loaded one at a time), by their paths as in
    /// `inputs`: two files of one group are each checked with the other files, never with each other.
    var alternatives: [Set<String>] = []

    /// Whether the files at `path` and `other` are alternatives: two files of one group (a file is not its own).
    func areAlternatives(_ path: String, _ other: String) -> Bool {
        path != other && alternatives.contains { $0.contains(path) && $0.contains(other) }
    }

    /// Every finding, problems and notes, in file order, then duplicates, second copies of BeeHive and of
    /// protocols, then types.
    func findings() -> [Finding] {
        var findings: [Finding] = []
        let notedInObjects = sectionsNamedByObjectNotes()
        for input in inputs {
            let file = input.report
            for problem in file.problems {
                findings.append(
                    Finding(
                        severity: .problem, code: "unreadableFile", location: file.path, message: problem,
                        path: file.path))
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
        findings += secondBeeHives()
        findings += secondProtocolCopies()
        findings += apiVersions()
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
            Finding(severity: .problem, code: "unreadableImage", location: label, message: $0, path: file.path)
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
                    Finding(
                        severity: .problem, code: "unreadableSection", location: location, message: error,
                        path: file.path))
                continue
            }
            guard count > 0 else { continue }
            let records = count == 1 ? "its record" : "its \(count) records"
            // The Swift macros' JSON copies are named by no note: the scanner reads their records in swift5_tests.
            let isSwiftCopy = RecordFormat.swiftJSONSections.contains { $0.name == section.name }
            if !section.namedByNote && !isSwiftCopy
                && !(image.type == .object && notedInObjects.contains(section.name))
            {
                findings.append(
                    Finding(
                        severity: .problem, code: "missingNote", location: location,
                        message:
                            "expected a BeeHive note naming section \(section.name); found "
                            + (image.notes.isEmpty ? "no note" : "notes naming other sections")
                            + ", so the load-time scanner does not read \(records) (unless BEEHIVE_SCAN=all): write "
                            + "the records with beehive.h, and do not define BH_NO_IMAGE_NOTE",
                        path: file.path))
            }
            if image.type.isLinked && !section.allocated {
                findings.append(
                    Finding(
                        severity: .problem, code: "sectionNotLoaded", location: location,
                        message:
                            "expected an allocated section (SHF_ALLOC); found flags "
                            + "0x\(String(section.flags, radix: 16)), "
                            + "so it is not loaded into memory and the scanner rejects \(records)",
                        path: file.path))
            }
            if image.type == .object && !section.retained {
                findings.append(
                    Finding(
                        severity: .problem, code: "droppedByLinker", location: location,
                        message:
                            "expected a retained section (SHF_GNU_RETAIN, flag 0x200000); found flags "
                            + "0x\(String(section.flags, radix: 16)), so a link with --gc-sections (every SwiftPM "
                            + "release build) drops \(records): write them with beehive.h and a compiler that knows "
                            + "__attribute__((retain)) (GCC 11, Clang 13 or later)",
                        path: file.path))
            }
        }
        if image.member != nil && !image.records.isEmpty && symbols.definedGlobals == 0 {
            findings.append(
                Finding(
                    severity: .problem, code: "droppedByLinker", location: label,
                    message:
                        "this archive member has \(image.records.count) records but defines no global symbol, so no "
                        + "link pulls it in and its records are left out: link the archive with --whole-archive, or "
                        + "make the program refer to a symbol that this file defines (an anchor)",
                    path: file.path))
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
        /// The path of the file given that holds it.
        var path: String
    }

    private var placedRecords: [Placed] {
        inputs.flatMap { input in
            input.report.images.flatMap { image in
                image.validRecords.map { record in
                    Placed(
                        record: record,
                        location: "\(input.report.label(of: image)): \(record.place) (file offset \(record.filePlace))",
                        path: input.report.path)
                }
            }
        }
    }

    /// Every declaration of a key after the first, each compared with the first earlier one that is not in an
    /// alternative of its file (within one file, or between files that are not alternatives, it is a duplicate).
    /// A service's rank is part of its key: registrations of different ranks are alternatives by design.
    private func duplicates() -> [Finding] {
        // Per key, the first declaration in each file, in file order: at most one per file, so that a search
        // past the alternatives is bounded by the number of files, not of records.
        var firstPerFile: [String: [Placed]] = [:]
        var findings: [Finding] = []
        for placed in placedRecords {
            let record = placed.record
            let key: String =
                switch record.kind {
                case .services: "service \(record.service ?? "")\u{0}\(record.name ?? "")\u{0}\(record.rank ?? 0)"
                case .modules: "module \(record.module ?? "")"
                case .routes: "route \(record.route ?? "")"
                case .types, .swiftRecords: "\(record.kind.oneRecord) \(record.section) \(record.offset)"  // not read
                }
            let earlierOnes = firstPerFile[key, default: []]
            if !earlierOnes.contains(where: { $0.path == placed.path }) {
                firstPerFile[key, default: []].append(placed)
            }
            guard let earlier = earlierOnes.first(where: { !areAlternatives($0.path, placed.path) }) else { continue }
            let what: String =
                switch record.kind {
                case .services:
                    "expected one implementation of \(record.summary.dropFirst("service ".count)); found "
                        + "\(record.implementation ?? "?") here and \(earlier.record.implementation ?? "?") at "
                        + "\(earlier.location); only one of them is registered"
                case .modules:
                    "expected module \(record.module ?? "?") to be declared once; it is declared here and at "
                        + "\(earlier.location); only one declaration is kept"
                case .routes:
                    "expected one handler for route \(record.route ?? "?"); found \(record.handler ?? "?") here and "
                        + "\(earlier.record.handler ?? "?") at \(earlier.location); only one of them is registered"
                case .types, .swiftRecords:
                    "expected one \(record.kind.oneRecord) record; found another at \(earlier.location)"
                }
            findings.append(
                Finding(severity: .problem, code: "duplicateRegistration", location: placed.location, message: what))
        }
        return findings
    }

    // MARK: - Second copies

    /// A linked image of a file given (an executable or a shared library), with its symbols.
    private struct LinkedImage {
        var file: InspectionReport.File
        var image: InspectionReport.Image
        var symbols: InputFile.ImageSymbols

        var label: String { file.label(of: image) }
        /// The file's name, without its folder.
        var fileName: String { String(file.path.split(separator: "/").last ?? "") }
    }

    private var linkedImages: [LinkedImage] {
        inputs.flatMap { input in
            zip(input.report.images, input.symbols).compactMap { image, symbols in
                image.type.isLinked ? LinkedImage(file: input.report, image: image, symbols: symbols) : nil
            }
        }
    }

    /// The fix of a plugin that carries its own BeeHive, as the runtime words it.
    private static let linkBeeHiveDynamic =
        "link the plugin with the BeeHiveDynamic product only, not BeeHive, BeeHiveMacros or the other static products"

    /// Every file, besides the one the host takes BeeHive from, that defines `beehive_core_runtime_marker` itself:
    /// each carries a copy of BeeHive's core of its own (a plugin, or a library it brings, linked a static product),
    /// which registers into another `Hive.shared`; the host refuses it at load (`secondBeeHive`).
    ///
    /// The host's copy is the executable's own when it defines the marker (BeeHive linked statically), otherwise
    /// libBeeHiveDynamic's. When neither is among the files, only files with records are reported: a plugin
    /// never holds the host's BeeHive, but a library without records may be the one it links.
    private func secondBeeHives() -> [Finding] {
        let copies = linkedImages.filter { $0.symbols.runtimeMarker != nil }
        let host =
            copies.first { $0.image.type == .executable }
            ?? copies.first { $0.image.type == .sharedLibrary && $0.fileName.hasPrefix("libBeeHiveDynamic") }
        var findings: [Finding] = []
        for copy in copies where copy.label != host?.label {
            let place = copy.symbols.runtimeMarker ?? "?"
            let expected: String
            if let host {
                let how = host.image.type == .executable ? "linked into it" : "from \(host.label)"
                expected = "expected this file to use the host's BeeHive (\(how))"
            } else {
                guard !copy.image.records.isEmpty else { continue }
                expected =
                    "expected this plugin to use the host's BeeHive (from libBeeHiveDynamic.so or the executable, "
                    + "neither of which was given)"
            }
            findings.append(
                Finding(
                    severity: .problem, code: "secondBeeHive", location: copy.label,
                    message:
                        "\(expected); found that it defines beehive_core_runtime_marker itself (at \(place)), so it "
                        + "carries a copy of BeeHive's core of its own, which would register into another "
                        + "Hive.shared, and the host refuses it at load (secondBeeHive): \(Self.linkBeeHiveDynamic)",
                    path: copy.file.path))
        }
        return findings
    }

    /// Every file that defines the protocol descriptor of a service protocol (one that a record names) when
    /// another file given defines it too: its types conform to its own copy of the protocol, not to the one the
    /// host asks for, and the host refuses the plugin at load (`doesNotConform`).
    ///
    /// The copy the program shares is the executable's when it defines the protocol, otherwise that of a file
    /// without records (the protocols' shared library), otherwise the first file's. Two alternatives that both
    /// define a protocol are not compared with each other; each is still compared with the shared copy.
    private func secondProtocolCopies() -> [Finding] {
        var services: [String] = []
        var seen: Set<String> = []
        for input in inputs {
            for image in input.report.images {
                for record in image.validRecords where record.kind == .services {
                    if let service = record.service, seen.insert(service).inserted { services.append(service) }
                }
            }
        }
        let images = linkedImages
        var findings: [Finding] = []
        for service in services {
            let definers = images.filter { $0.symbols.definedProtocols.contains(service) }
            guard definers.count > 1 else { continue }
            let shared =
                definers.first { $0.image.type == .executable } ?? definers.first { $0.image.records.isEmpty }
                ?? definers[0]
            for copy in definers where copy.label != shared.label {
                guard !areAlternatives(copy.file.path, shared.file.path) else { continue }
                findings.append(
                    Finding(
                        severity: .problem, code: "secondProtocolCopy", location: copy.label,
                        message:
                            "expected protocol \(service), a service that records name, to be defined by one file "
                            + "that the host and its plugins share (\(shared.label) defines it); found that this "
                            + "file defines its own copy too (its protocol descriptor), so its types conform to "
                            + "that copy only and the host refuses it at load (doesNotConform): link the "
                            + "protocols' module as a shared library that the host and the plugin both load (a "
                            + "dynamic library product), not into the plugin",
                        path: copy.file.path))
            }
        }
        return findings
    }

    /// Every service record whose code was compiled against a version of its service's API (`@BeeHiveAPI`) that the
    /// files given do not serve (another major version, or a newer minor version), as the host refuses it at load
    /// (`incompatibleAPIVersion`); and, as notes, a plugin's services that say no version of a versioned API.
    ///
    /// The version served is the one declared by the executable when it declares it, otherwise by a file without
    /// records (the protocols' shared library), otherwise by the first file. A record's version is its `"api"` key (a
    /// C record), or the one the API markers of its image's read-only data give for its service (the text of
    /// `_beeHiveAPIVersion`, compiled into the image where the Swift macros call it).
    private func apiVersions() -> [Finding] {
        let images = linkedImages
        var served: [String: (record: APIRecord, label: String)] = [:]
        for order in 0...2 {
            for image in images where Self.servingOrder(image) == order {
                for api in image.symbols.declaredAPIs where served[api.api] == nil {
                    served[api.api] = (api, image.label)
                }
            }
        }
        guard !served.isEmpty else { return [] }
        var findings: [Finding] = []
        for image in images {
            for record in image.image.validRecords where record.kind == .services {
                guard let service = record.service, let host = served[service] else { continue }
                let serving = host.record.version
                let declared = host.record.location.map { "\($0.file):\($0.line) in \(host.label)" } ?? host.label
                let location = "\(image.label): \(record.place)"
                guard let built = record.api.flatMap(APIVersion.init) ?? image.symbols.builtAgainst[service] else {
                    guard image.image.type == .sharedLibrary else { continue }
                    findings.append(
                        Finding(
                            severity: .note, code: "unversionedImplementation", location: location,
                            message:
                                "expected \(record.implementation ?? "the implementation") to say which version of "
                                + "\(service)'s API it was built against (\(serving) is served, declared at "
                                + "\(declared)); found none, so a host lets it join unchecked",
                            path: image.file.path))
                    continue
                }
                guard !serving.accepts(builtAgainst: built) else { continue }
                findings.append(
                    Finding(
                        severity: .problem, code: "incompatibleAPIVersion", location: location,
                        message:
                            "expected an implementation of \(service) built against its API \(serving.acceptedRange) "
                            + "(\(serving) is served, declared at \(declared)); found "
                            + "\(record.implementation ?? "one") built against \(built), which the host refuses at "
                            + "load (incompatibleAPIVersion): rebuild it against the API module the host loads",
                        path: image.file.path))
            }
        }
        return findings
    }

    /// Which file's API declarations are served first: the executable's, then those of files without records (the
    /// protocols' library), then the others.
    private static func servingOrder(_ image: LinkedImage) -> Int {
        image.image.type == .executable ? 0 : image.image.records.isEmpty ? 1 : 2
    }

    // MARK: - Names

    /// One name a record gives, and what the record says it is.
    private struct NamedByRecord {
        /// The name, module-qualified: `App.UserTrackService`.
        var name: String
        /// Whether it names a service (a protocol, or a class), not a type the hive creates.
        var isService: Bool
        /// What the record says it is: "the implementation of App.Service", "a module", ….
        var role: String
        /// Whether a Swift annotation (`@BeeHiveService`) wrote the record: only its service can be a typealias.
        var isSwiftAnnotation = false
    }

    /// Every name `record` gives: a service's protocol and implementation, a module, a route's handler.
    private func names(in record: InspectionReport.Record) -> [NamedByRecord] {
        switch record.kind {
        case .services:
            let service = String(record.summary.dropFirst("service ".count))
            var names: [NamedByRecord] = []
            if let protocolName = record.service {
                names.append(
                    NamedByRecord(
                        name: protocolName, isService: true,
                        role: "the service implemented by \(record.implementation ?? "?")",
                        isSwiftAnnotation: record.file?.hasSuffix(".swift") == true))
            }
            if let implementation = record.implementation {
                names.append(
                    NamedByRecord(name: implementation, isService: false, role: "the implementation of \(service)"))
            }
            return names
        case .modules:
            return record.module.map { [NamedByRecord(name: $0, isService: false, role: "a module")] } ?? []
        case .routes:
            return record.handler.map {
                [NamedByRecord(name: $0, isService: false, role: "the handler of \(record.route ?? "?")")]
            } ?? []
        case .types, .swiftRecords:
            return []  // the report holds no record of these kinds (RecordDecoder)
        }
    }

    /// Every name a record gives that the program does not define: a misspelt service is as wrong as a misspelt
    /// implementation, and a CI gate must catch both before the program runs.
    ///
    /// A record of a file is checked with the names of every file but its alternatives: a type that only another
    /// version of the plugin defines is missing from the program that loads this version.
    private func types() -> [Finding] {
        // The names that the files a record of the file at `path` sees define, per path (the same for every file
        // without alternatives).
        var seenBy: [String: (types: Set<String>, protocols: Set<String>)] = [:]
        func defined(seenBy path: String) -> (types: Set<String>, protocols: Set<String>) {
            let key = alternatives.contains { $0.contains(path) } ? path : ""
            if let cached = seenBy[key] { return cached }
            var names: (types: Set<String>, protocols: Set<String>) = ([], [])
            for input in inputs where !areAlternatives(path, input.report.path) {
                for symbols in input.symbols {
                    names.types.formUnion(symbols.definedTypes)
                    names.protocols.formUnion(symbols.definedProtocols)
                }
            }
            seenBy[key] = names
            return names
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
        var seenTypes: Set<String> = []
        var seenServices: Set<String> = []
        for placed in placedRecords {
            let (definedTypes, definedProtocols) = defined(seenBy: placed.path)
            for named in names(in: placed.record) {
                let name = named.name
                if named.isService {
                    guard !definedProtocols.contains(name), !definedTypes.contains(name),
                        seenServices.insert(name).inserted
                    else { continue }
                } else {
                    guard !definedTypes.contains(name), seenTypes.insert(name).inserted else { continue }
                }
                let what = named.isService ? "service" : "type"
                if let whyUnknown {
                    findings.append(
                        Finding(
                            severity: .note, code: "typeNotChecked", location: placed.location,
                            message: "\(what) \(name) (\(named.role)): unknown, not checked: \(whyUnknown)"))
                    continue
                }
                let candidates = named.isService ? definedProtocols.union(definedTypes) : definedTypes
                let closest = ClosestNames.closest(to: name, among: candidates)
                findings.append(
                    Finding(
                        severity: .problem, code: "missingType", location: placed.location,
                        message: Self.missingMessage(named, closest: closest), path: placed.path,
                        record: placed.record))
            }
        }
        return findings
    }

    /// "expected … in the program; found none", with the causes that can apply and the closest names defined.
    private static func missingMessage(_ named: NamedByRecord, closest: [String]) -> String {
        let name = named.name
        var message: String
        if named.isService {
            message =
                "expected service \(name) (\(named.role)) to be a protocol or type of the program; found no protocol "
                + "or type descriptor for it in the symbol tables of the files given"
        } else {
            message =
                "expected type \(name) (\(named.role)) in the program; found no type descriptor for it in the symbol "
                + "tables of the files given"
        }
        // Only the causes that can apply: with a close name defined, the likely one is a typo.
        var causes = ["misspelled"]
        if !name.contains(".") { causes.append("not module-qualified (Module.\(name))") }
        // A typealias has no descriptor, and a macro cannot tell one from the protocol it names: the record keeps the
        // alias's name, which only a resolve by the type finds. A C record's name is a string: a typo, not an alias.
        if named.isSwiftAnnotation { causes.append("a typealias (name the protocol itself)") }
        causes.append("in a file not given")
        // A protocol that an implementation conforms to is kept by the optimizer; a type named only by a record
        // may not be.
        if !named.isService && closest.isEmpty {
            causes.append(
                "an internal struct or enum that the optimizer removed (make types named only by records public)")
        }
        message += ": " + causes.dropLast().joined(separator: ", ") + " or " + causes.last!
        return message + "." + ClosestNames.hint(closest)
    }
}
