@_spi(Testing) internal import _BeeHiveDiscovery

extension Hive {
    /// What a scan of the loaded images added.
    public struct ScanReport: Sendable, Hashable {
        /// Record sections read.
        public var sections: Int = 0
        /// Services registered.
        public var services: Int = 0
        /// Modules declared.
        public var modules: Int = 0
        /// Routes declared.
        public var routes: Int = 0
        /// Problems found (also in ``Hive/diagnostics``).
        public var problems: Int = 0
        /// Images unloaded since the last scan, whose registrations were withdrawn.
        public var unloadedImages: Int = 0
    }

    /// Registers the records of a batch (its plugins' images taken out): withdraws the registrations of the images
    /// it says were unloaded, parses and registers the records of its sections. Returns what it added and the
    /// problems it found, neither kept nor logged.
    func registerRecords(of batch: ImageScanner.Batch) -> (ScanReport, [Diagnostic]) {
        var report = ScanReport()
        var problems: [Diagnostic] = []
        var parsed = ParsedRecords()
        parsed.services.reserveCapacity(
            batch.sections.reduce(0) { $0 + ($1.kind == .services ? $1.bytes.count / 32 : 0) })

        for image in batch.unloadedImages {
            TypedRecords.remove(image: image.id)
            servedAPIs.withLock { $0.withdraw(image: image.id) }
            let withdrawal = state.withLock {
                $0.withdraw(image: image.id, reason: "its image \(image.path) was unloaded")
            }
            report.unloadedImages += 1
            guard withdrawal.withdrawn > 0 else { continue }
            let reinstated =
                withdrawal.reinstated.isEmpty
                ? "" : "; reinstated from sources still present: " + withdrawal.reinstated.joined(separator: ", ")
            problems.append(
                Diagnostic(
                    .warning,
                    HiveError(
                        .imageUnloaded,
                        "the image was unloaded; its \(withdrawal.withdrawn) registrations were withdrawn\(reinstated)",
                        source: .image(image.path, imageID: image.id))))
        }
        for problem in batch.problems {
            problems.append(Diagnostic(problem))
        }
        // The scanner drains image by image, so one image's sections come together: each run is parsed as one span.
        var first = batch.sections.startIndex
        while first < batch.sections.endIndex {
            let image = batch.sections[first].imageID
            var end = first + 1
            while end < batch.sections.endIndex && batch.sections[end].imageID == image { end += 1 }
            timeline.span("ingest.image", category: "registration") { arguments in
                let services = parsed.services.count
                let problemCount = problems.count
                for section in batch.sections[first..<end] where options.registersRecords(of: section.sectionName) {
                    report.sections += 1
                    if section.kind == .types { TypedRecords.add(section, reporter: self) }
                    parse(section, into: &parsed, problems: &problems)
                }
                if arguments.isRecording {
                    arguments["image"] = .string(batch.sections[first].imagePath)
                    arguments["sections"] = .integer(end - first)
                    arguments["services"] = .integer(parsed.services.count - services)
                    arguments["problems"] = .integer(problems.count - problemCount)
                }
            }
            first = end
        }
        problems += serve(parsed.apis)
        problems += checkAPIVersions(of: &parsed.services, isPlugin: false)
        problems += add(services: parsed.services, modules: parsed.modules, routes: parsed.routes)
        report.services = parsed.services.count
        report.modules = parsed.modules.count
        report.routes = parsed.routes.count
        return (report, problems)
    }

    /// The services, modules, routes and API versions that records declare.
    struct ParsedRecords {
        var services: [ServiceEntry] = []
        var modules: [ModuleDeclaration] = []
        var routes: [RouteDeclaration] = []
        var apis: [APIDeclaration] = []
    }

    /// Parses the records of one section (of services, modules or routes, or the Swift macros' records) into
    /// `parsed`; keeps their problems. Typed records (format 2) hold no JSON: nothing is parsed.
    func parse(_ section: RecordSection, into parsed: inout ParsedRecords, problems: inout [Diagnostic]) {
        guard section.kind != .types else { return }
        var lastFile: String?
        let origin = RegistrationSource.AnnotationSection(
            image: section.imagePath, imageID: section.imageID, section: section.sectionName,
            fileOffset: section.fileOffset)
        switch section.kind {
        case .types: return  // above: no section object made for a section that is not parsed
        case .swiftRecords:
            let made = TypedRecords.MadeRecords(capacity: section.bytes.count / RecordFormat.swiftRecordSize)
            defer { TypedRecords.keep(made, imageID: section.imageID) }
            SwiftRecords.forEach(in: section, into: made) { entry in
                switch entry {
                case .record(let record, let kind, let api, let typed):
                    parse(
                        record, as: kind, in: origin, files: &lastFile, into: &parsed, problems: &problems,
                        apiMarker: api, typed: typed)
                case .api(let record):
                    parseAPI(record, in: origin, into: &parsed, problems: &problems)
                case .failure(let offset, let reason):
                    problems.append(
                        Diagnostic(
                            .error,
                            HiveError(
                                .malformedRecord,
                                "Swift record at offset \(offset) of section \(section.sectionName): \(reason); it "
                                    + "was skipped",
                                source: .annotation(in: origin, offset: offset))))
                }
            }
        case .services, .modules, .routes:
            section.forEachRecord { record in
                parse(record, as: section.kind, in: origin, files: &lastFile, into: &parsed, problems: &problems)
            }
        }
    }

    /// Parses one JSON record of the section `origin` as a record of `kind` into `parsed`; keeps its problem. A Swift
    /// service record's `apiMarker` says which version of its service's API it was built against (`""`: none), and its
    /// `typed` record, when this copy of BeeHive wrote one, gives its implementation and service as types: the
    /// registration is then bound at once and indexed by the service's type.
    private func parse(
        _ record: RawRecord, as kind: RecordKind, in origin: RegistrationSource.AnnotationSection,
        files lastFile: inout String?,
        into parsed: inout ParsedRecords, problems: inout [Diagnostic], apiMarker: StaticString = "",
        typed: UnsafePointer<_BeeHiveTypedRecord>? = nil
    ) {
        let source = { (location: RecordLocation?) in Self.source(of: record, in: origin, at: location) }
        do {
            switch kind {
            case .services:
                let marked = apiMarker.utf8CodeUnitCount == 0 ? nil : Self.version(inMarker: apiMarker)
                func parsedRegistration(service: String? = nil) throws -> ServiceRegistration {
                    let r = try RecordParser.parseService(record, files: &lastFile)
                    // Most records have no properties: a copy of theirs would make the runtime build
                    // `[String: String]`'s metadata from its mangled name (a scan for `String: Hashable`, ~0.4 M
                    // instructions once per process), where an empty literal needs none. The name is unwrapped and
                    // wrapped again: the optimizer copies `r.name` as it is through `Optional<String>`'s metadata,
                    // made from its mangled name at the first record (~9 K instructions once per process).
                    let name: String? = if let name = r.name { name } else { nil }
                    return ServiceRegistration(
                        service: service ?? r.service, name: name, implementation: r.implementation,
                        source: source(r.location),
                        rank: r.rank, properties: r.properties.isEmpty ? [String: String]() : r.properties,
                        apiVersion: (marked ?? r.api)?.description)
                }
                guard let typed else {
                    let registration = try parsedRegistration()
                    parsed.services.append(ServiceEntry(registration, .typeName(registration.implementation)))
                    return
                }
                // The typed record says what the JSON says (the macro wrote both), unless the annotation has
                // properties: then the JSON is read for them. A keyed record names the service as its key does.
                let service: any Any.Type
                let serviceName: String
                let key: (any ServiceKey.Type)?
                let implementation: any ServiceImplementation.Type
                let make: ServiceMaker
                let said: _BeeHiveTypedRecord.Registration
                switch typed.pointee.payload {
                case .service(let type, let name, let implementationType, let maker, let registration):
                    (service, serviceName, key, implementation, make, said) =
                        (type, name, nil, implementationType, maker, registration)
                case .keyedService(let serviceKey, let implementationType, let maker, let registration):
                    (service, serviceName, key, implementation, make, said) =
                        (serviceKey, serviceKey.serviceName, serviceKey, implementationType, maker, registration)
                case .type:
                    let registration = try parsedRegistration()
                    parsed.services.append(ServiceEntry(registration, .typeName(registration.implementation)))
                    return
                }
                let registration =
                    said.isComplete
                    ? ServiceRegistration(
                        service: serviceName, name: said.name, implementation: typed.pointee.name,
                        source: source(RecordLocation(file: said.file, line: said.line)), rank: said.rank,
                        apiVersion: marked?.description)
                    : try parsedRegistration(service: key == nil ? nil : serviceName)
                parsed.services.append(
                    ServiceEntry(
                        registration, .implementation(implementation, boxes: .none), annotated: (service, key, make)))
            case .modules:
                let r = try ModuleRecord(RecordParser.parse(record))
                parsed.modules.append(try ModuleDeclaration(r, source: source(r.location)))
            case .routes:
                let r = try RouteRecord(RecordParser.parse(record))
                parsed.routes.append(
                    RouteDeclaration(pattern: r.pattern, handler: r.handler, source: source(r.location)))
            case .types, .swiftRecords:
                break  // no JSON of their own: the caller reads them
            }
        } catch let error as RecordError {
            problems.append(Diagnostic(.error, HiveError(recordError: error, record: record, source: source(nil))))
        } catch let error as HiveError {
            problems.append(Diagnostic(.error, HiveError(error.code, error.message, source: source(nil))))
        } catch {
            problems.append(Diagnostic(.error, HiveError(.malformedRecord, "\(error)", source: source(nil))))
        }
    }

    /// Parses an API record (`@BeeHiveAPI`) of the section `origin` into `parsed`; keeps its problem.
    private func parseAPI(
        _ record: RawRecord, in origin: RegistrationSource.AnnotationSection, into parsed: inout ParsedRecords,
        problems: inout [Diagnostic]
    ) {
        do throws(RecordError) {
            let api = try APIRecord(RecordParser.parse(record))
            parsed.apis.append(
                APIDeclaration(
                    record: api, source: Self.source(of: record, in: origin, at: api.location),
                    imageID: origin.imageID))
        } catch {
            problems.append(
                Diagnostic(
                    .error,
                    HiveError(recordError: error, record: record, source: Self.source(of: record, in: origin))))
        }
    }

    /// Where `record` of the section `origin` is: the annotation's file and line when the record says, and its place.
    private static func source(
        of record: RawRecord, in origin: RegistrationSource.AnnotationSection, at location: RecordLocation? = nil
    ) -> RegistrationSource {
        .annotation(in: origin, offset: record.offset, file: location?.file, line: location?.line ?? 0)
    }

    /// The version that a service record's API marker gives (`beehive-api:ShopAPI.PriceService@2.1.0`).
    private static func version(inMarker marker: StaticString) -> APIVersion? {
        APIVersion.parse(
            marker: String(
                decoding: UnsafeRawBufferPointer(start: marker.utf8Start, count: marker.utf8CodeUnitCount),
                as: UTF8.self))?
            .version
    }
}

/// Counters of the load-time scanner.
public struct ImageScanStatistics: Sendable, Hashable {
    /// Scans done (the one before `main`, and each ``Hive/rescan()``).
    public let scans: Int
    /// Scans that returned at once because no image was loaded or unloaded.
    public let shortCircuitScans: Int
    /// Images loaded at the last full walk.
    public let imagesLoaded: Int
    /// Images with a BeeHive note (records) among those scanned.
    public let imagesWithRecords: Int
    /// Images whose files were opened to read their section headers.
    public let imagesOpened: Int
    /// Record sections found.
    public let sectionsFound: Int
    /// Time of the last scan, in nanoseconds. For the shared hive after its first use this is the quick
    /// rescan of that first use, not the walk before `main` (that is ``firstScanNanoseconds``).
    public let lastScanNanoseconds: UInt64
    /// Time of all scans, in nanoseconds.
    public let totalScanNanoseconds: UInt64
    /// Time of the first scan, in nanoseconds: for the shared hive, the walk a constructor did before
    /// `main` (notes read from memory, no file opened).
    public let firstScanNanoseconds: UInt64
    /// Time spent opening the files of images with records and reading their sections, in nanoseconds (at first use).
    public let openNanoseconds: UInt64

    init(_ s: ImageScanner.Statistics) {
        scans = s.scans
        shortCircuitScans = s.shortCircuitScans
        imagesLoaded = s.imagesSeen
        imagesWithRecords = s.imagesMarked
        imagesOpened = s.imagesOpened
        sectionsFound = s.sectionsFound
        lastScanNanoseconds = s.lastScanNanoseconds
        totalScanNanoseconds = s.totalScanNanoseconds
        firstScanNanoseconds = s.firstScanNanoseconds
        openNanoseconds = s.openNanoseconds
    }
}

extension Diagnostic {
    /// A problem of an image the scanner reported: a warning when its cause can pass (the image is tried again).
    init(_ problem: ImageScanner.ImageProblem) {
        self.init(
            problem.isTransient ? .warning : .error,
            HiveError(.unreadableImage, problem.message, source: .image(problem.image.path, imageID: problem.image.id)))
    }
}

extension HiveError {
    init(recordError error: RecordError, record: RawRecord, source: RegistrationSource) {
        let code: Code =
            switch error.kind {
            case .invalidUTF8: .invalidUTF8
            case .unterminated: .unterminatedRecord
            case .syntax, .shape: .malformedRecord
            }
        let at = error.byteOffset.map { " at byte \($0) of the record" } ?? ""
        self.init(code, "\(error.message)\(at); record: \(record.excerpt)", source: source)
    }

    static func duplicate(_ registration: ServiceRegistration, of existing: ServiceRegistration) -> HiveError {
        HiveError(
            .duplicateRegistration,
            "expected one implementation of \(registration.displayName); found \(registration.implementation) here and "
                + "\(existing.implementation) registered before by \(existing.source), which is kept",
            source: registration.source)
    }
}

extension ModuleDeclaration {
    init(_ record: ModuleRecord, source: RegistrationSource) throws(HiveError) {
        var level = ModuleLevel.normal
        switch record.level {
        case .named(let name)?:
            guard let named = ModuleLevel(named: name) else {
                throw HiveError(
                    .unknownModuleLevel,
                    "expected a level basic, normal, capability, feature, application or an integer; found \"\(name)\"")
            }
            level = named
        case .number(let n)?: level = ModuleLevel(rawValue: n)
        case nil: break
        }
        self.init(
            name: record.module, level: level, priority: record.priority ?? 0, isAsync: record.isAsync ?? false,
            source: source)
    }
}
