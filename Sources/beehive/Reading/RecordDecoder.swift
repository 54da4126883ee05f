import BeeHive
@_spi(Testing) import _BeeHiveDiscovery

/// Turns the raw records of a section into report records with the library's own parser, so that the tool
/// reads each record exactly as a running program would.
enum RecordDecoder {
    /// The records of `section`, valid and malformed, in offset order: the first `limit` of them decoded, the
    /// others only counted (`omitted`), so that a file of millions of records costs memory for `limit` only.
    /// - Parameters:
    ///   - section: The section's bytes and where they are.
    ///   - sources: The symbol at each record offset, when the symbol table has one.
    ///   - limit: How many records to decode at most.
    static func records(
        of section: RecordSection, sources: [Int: InspectionReport.Source], limit: Int = .max
    ) -> (records: [InspectionReport.Record], omitted: Int) {
        let kind = section.kind
        guard !kind.hasAccessors else { return ([], 0) }  // typed records: pointers, not for files
        var records: [InspectionReport.Record] = []
        var omitted = 0
        section.forEachRecord { raw in
            guard records.count < limit else {
                omitted += 1
                return
            }
            var record = InspectionReport.Record(
                kind: kind, section: section.sectionName, sectionIndex: section.sectionIndex,
                offset: raw.offset,
                fileOffset: section.fileOffset + UInt64(raw.offset))
            record.source = sources[raw.offset]
            do throws(DecodingProblem) {
                try decode(raw, kind: section.kind, into: &record)
            } catch {
                record.error = problem(error)
                record.text = raw.excerpt
            }
            records.append(record)
        }
        return (records, omitted)
    }

    private static func decode(
        _ raw: RawRecord, kind: RecordKind, into record: inout InspectionReport.Record
    ) throws(DecodingProblem) {
        do {
            switch kind {
            case .services:
                let service = try RecordParser.parseService(raw)
                record.service = service.service
                record.implementation = service.implementation
                record.name = service.name
                record.rank = service.rank == 0 ? nil : service.rank
                record.properties = service.properties.isEmpty ? nil : service.properties
                record.api = service.api?.description
                record.written(service.location)
            case .modules:
                let module = try ModuleRecord(RecordParser.parse(raw))
                record.module = module.module
                record.level = try level(module.level)
                record.priority = module.priority ?? 0
                record.async = module.isAsync ?? false
                record.written(module.location)
            case .routes:
                let route = try RouteRecord(RecordParser.parse(raw))
                record.route = route.pattern
                record.handler = route.handler
                record.written(route.location)
            case .types, .swiftRecords:
                break
            }
        } catch let error as RecordError {
            throw .record(error)
        } catch let error as DecodingProblem {
            throw error
        } catch {
            throw .other("\(error)")
        }
    }

    /// The level as the library resolves it: a known name, or the integer given; normal when absent.
    private static func level(_ level: RecordLevel?) throws(DecodingProblem) -> Int {
        switch level {
        case nil: return ModuleLevel.normal.rawValue
        case .number(let n): return n
        case .named(let name):
            guard let known = ModuleLevel(named: name) else {
                throw .unknownLevel(
                    "expected a level basic, normal, capability, feature, application or an integer; found \"\(name)\"")
            }
            return known.rawValue
        }
    }

    /// Why a record could not be decoded.
    private enum DecodingProblem: Error {
        case record(RecordError)
        case unknownLevel(String)
        case other(String)
    }

    private static func problem(_ error: DecodingProblem) -> InspectionReport.RecordProblem {
        switch error {
        case .record(let error):
            let code: HiveError.Code =
                switch error.kind {
                case .invalidUTF8: .invalidUTF8
                case .unterminated: .unterminatedRecord
                case .syntax, .shape: .malformedRecord
                }
            return .init(code: code.description, message: error.message, byteOffset: error.byteOffset)
        case .unknownLevel(let message):
            return .init(code: HiveError.Code.unknownModuleLevel.description, message: message)
        case .other(let message):
            return .init(code: HiveError.Code.malformedRecord.description, message: message)
        }
    }
}

extension InspectionReport.Record {
    /// Takes the annotation's file and line from a record of format version 2.
    fileprivate mutating func written(_ location: RecordLocation?) {
        file = location?.file
        line = location?.line
    }
}
