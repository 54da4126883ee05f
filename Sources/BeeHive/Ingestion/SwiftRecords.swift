@_spi(Testing) internal import _BeeHiveDiscovery

/// Reads the Swift macros' records (format version 3) of a `swift5_tests` section: each entry's accessor, called with
/// the text guard, gives the record's JSON, which is then parsed as the JSON records of C annotations are.
///
/// The guard is the standard library's `StaticString` metatype and a stamp: every copy of BeeHive in a process
/// (a plugin built with its own) reads every other copy's records, since the text is the same for all of them. The
/// accessor writes `(stamp: UInt64, json: StaticString)` into zeroed memory; the text is read only once the stamp
/// shows that the accessor wrote it. The scanner has checked every entry's kind, version and record kind, and that its
/// accessor lies in the image's code; an accessor runs no code of the program's, only BeeHive's
/// ``_BeeHiveTypedRecord/write(json:_:to:type:hint:)`` that the macro calls.
enum SwiftRecords {
    /// What one entry gave: its JSON record and the kind it declares (for a service, with the version of its API
    /// that it was built against, `""` for none), an API record (`@BeeHiveAPI`), or why it gave none.
    enum Entry {
        case record(RawRecord, RecordKind, api: StaticString)
        case api(RawRecord)
        case failure(offset: Int, String)
    }

    /// What a text accessor writes: the reader's stamp, the record's JSON, and the API marker of a service record.
    typealias Text = (stamp: UInt64, json: StaticString, api: StaticString)

    /// Calls `body` with the JSON record of each entry of `section`, in order.
    static func forEachText(in section: RecordSection, _ body: (Entry) -> Void) {
        let bytes = section.bytes
        let size = RecordFormat.swiftRecordSize
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Text>.size, alignment: MemoryLayout<Text>.alignment)
        defer { buffer.deallocate() }
        let stamp = UInt64.random(in: 1...UInt64.max)
        var offset = 0
        while offset + size <= bytes.count {
            defer { offset += size }
            let address = bytes.loadUnaligned(
                fromByteOffset: offset + RecordFormat.swiftRecordAccessorOffset, as: UInt.self)
            let recordKind = bytes.loadUnaligned(
                fromByteOffset: offset + RecordFormat.swiftRecordKindOffset, as: UInt.self)
            // Kinds and accessors are checked in C; 1 service, 2 module, 3 route, 4 API.
            guard (1...RecordFormat.swiftRecordKindAPI).contains(recordKind),
                let accessor = UnsafeRawPointer(bitPattern: address)
            else { continue }
            switch text(unsafeBitCast(accessor, to: _BeeHiveTypedRecord.Accessor.self), stamp: stamp, into: buffer) {
            case .success(let text):
                let record = RawRecord(
                    offset: offset,
                    bytes: UnsafeRawBufferPointer(start: text.json.utf8Start, count: text.json.utf8CodeUnitCount),
                    isTerminated: true)
                switch recordKind {
                case 1: body(.record(record, .services, api: text.api))
                case 2: body(.record(record, .modules, api: ""))
                case 3: body(.record(record, .routes, api: ""))
                default: body(.api(record))
                }
            case .failure(let reason):
                body(.failure(offset: offset, reason))
            }
        }
    }

    private enum Outcome {
        case success(Text)
        case failure(String)
    }

    /// Calls a text accessor with the guard (`StaticString.self` and `stamp`), into `buffer` once zeroed.
    private static func text(
        _ accessor: _BeeHiveTypedRecord.Accessor, stamp: UInt64, into buffer: UnsafeMutableRawPointer
    ) -> Outcome {
        let size = MemoryLayout<Text>.size
        guard
            _BeeHiveTypedRecord.call(accessor, expecting: StaticString.self, stamp: stamp, into: buffer, size: size)
        else {
            return .failure("its accessor answered that it gives no JSON text (expected a BeeHive record of version 3)")
        }
        guard buffer.load(as: UInt64.self) == stamp else {  // the stamp is the first field
            return .failure("its accessor reported success but did not write the stamp it was given")
        }
        return .success(buffer.load(as: Text.self))
    }
}
