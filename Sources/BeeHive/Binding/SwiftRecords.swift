@_spi(Testing) internal import _BeeHiveDiscovery

/// Reads the Swift macros' records (format version 3) of a `swift5_tests` section: one call of each entry's accessor
/// gives the record's JSON and, when the record was compiled against this copy of BeeHive, its typed record too.
///
/// Two guards, tried in turn. The *value* guard is this copy's ``Value`` metatype: an accessor compiled against this
/// BeeHive writes its JSON, its API marker and its ``_BeeHiveTypedRecord`` at once, so that registration needs no
/// second call and the first use no look-up by name. An accessor of another copy of BeeHive (a plugin built with its
/// own) answers "not mine"; it is then asked with the *text* guard, the standard library's `StaticString` metatype,
/// which every copy shares, and writes `(stamp: UInt64, json: StaticString, api: StaticString)`. Either is read only
/// once the stamp shows that the accessor wrote it. The scanner has checked every entry's kind, version and record
/// kind, and that its accessor lies in the image's code; an accessor runs no code of the program's, only BeeHive's
/// ``_BeeHiveTypedRecord/write(json:api:_:to:type:hint:)`` that the macro calls.
enum SwiftRecords {
    /// What one entry gave: its JSON record and the kind it declares (for a service, with the version of its API
    /// that it was built against, `""` for none) and its typed record when this copy of BeeHive wrote it, an API
    /// record (`@BeeHiveAPI`), or why it gave none.
    enum Entry {
        /// A record of services, modules or routes, with the version of its service's API that a service record was
        /// built against (`""`: none), and its typed record when this copy of BeeHive wrote one: kept in the batch
        /// `forEach` was given, for as long as that batch.
        case record(RawRecord, RecordKind, api: StaticString, typed: UnsafePointer<_BeeHiveTypedRecord>?)
        case api(RawRecord)
        case failure(offset: Int, String)
    }

    /// What a text accessor writes: the reader's stamp, the record's JSON, and the API marker of a service record.
    typealias Text = (stamp: UInt64, json: StaticString, api: StaticString)

    /// What an accessor of this copy of BeeHive writes under the value guard: the text and the typed record.
    struct Value {
        /// The reader's stamp, first: read as raw bytes before the rest is trusted.
        var stamp: UInt64
        let json: StaticString
        let api: StaticString
        let typed: _BeeHiveTypedRecord
    }

    /// Where a ``Value``'s typed record lies. A ``Value`` begins as a ``Text`` does (its stamp, then the same two
    /// strings; a test checks it): its writer writes the text, then the typed record in place.
    static let typedOffset = MemoryLayout<Value>.offset(of: \Value.typed)!

    /// Calls `body` with each entry of `section`, in order; the typed records the accessors write are moved into
    /// `made`, never copied.
    ///
    /// Entries hold only trivial values and a pointer: a typed record in an entry (an optional, a tuple) was copied
    /// on its way, each copy retaining and releasing its fields, and those copies made the runtime build the
    /// optional's and the tuple's metadata by name at the first scan of every process.
    static func forEach(in section: RecordSection, into made: TypedRecords.MadeRecords, _ body: (Entry) -> Void) {
        let bytes = section.bytes
        let size = RecordFormat.swiftRecordSize
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: Swift.max(MemoryLayout<Value>.size, MemoryLayout<Text>.size),
            alignment: Swift.max(MemoryLayout<Value>.alignment, MemoryLayout<Text>.alignment))
        defer { buffer.deallocate() }
        let typedOffset = Self.typedOffset
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
            let json: StaticString
            let api: StaticString
            let typed: UnsafePointer<_BeeHiveTypedRecord>?
            // An accessor whose typed value has another layout (an image built against another BeeHive) is asked for
            // its text only: its registration is bound by name.
            let layout = bytes.loadUnaligned(
                fromByteOffset: offset + RecordFormat.swiftRecordLayoutOffset, as: UInt.self)
            switch call(
                unsafeBitCast(accessor, to: _BeeHiveTypedRecord.Accessor.self), stamp: stamp, into: buffer,
                asksForValue: layout == RecordFormat.swiftTypedLayout)
            {
            case .value:
                let value = buffer.assumingMemoryBound(to: Value.self)
                (json, api) = (value.pointee.json, value.pointee.api)
                let written = (buffer + typedOffset).assumingMemoryBound(to: _BeeHiveTypedRecord.self)
                if recordKind == RecordFormat.swiftRecordKindAPI {
                    written.deinitialize(count: 1)  // an API record's is not kept
                    typed = nil
                } else {
                    typed = made.take(from: written, imageID: section.imageID)
                }
            case .text:
                let text = buffer.load(as: Text.self)
                (json, api, typed) = (text.json, text.api, nil)
            case .failure(let reason):
                body(.failure(offset: offset, reason))
                continue
            }
            let record = RawRecord(
                offset: offset, bytes: UnsafeRawBufferPointer(start: json.utf8Start, count: json.utf8CodeUnitCount),
                isTerminated: true)
            switch recordKind {
            case 1: body(.record(record, .services, api: api, typed: typed))
            case 2: body(.record(record, .modules, api: "", typed: typed))
            case 3: body(.record(record, .routes, api: "", typed: typed))
            default: body(.api(record))
            }
        }
    }

    /// What a call of an accessor wrote: a ``Value``, a ``Text``, or nothing, and why.
    private enum Outcome {
        case value
        case text
        case failure(String)
    }

    /// Calls an accessor with the value guard (when `asksForValue`), then, if it answers "not mine", with the text
    /// guard; into `buffer`, zeroed before each call.
    private static func call(
        _ accessor: _BeeHiveTypedRecord.Accessor, stamp: UInt64, into buffer: UnsafeMutableRawPointer,
        asksForValue: Bool
    ) -> Outcome {
        let isValue =
            asksForValue
            && _BeeHiveTypedRecord.call(
                accessor, expecting: Value.self, stamp: stamp, into: buffer, size: MemoryLayout<Value>.size)
        guard
            isValue
                || _BeeHiveTypedRecord.call(
                    accessor, expecting: StaticString.self, stamp: stamp, into: buffer, size: MemoryLayout<Text>.size)
        else {
            return .failure("its accessor answered that it gives no JSON text (expected a BeeHive record of version 3)")
        }
        guard buffer.load(as: UInt64.self) == stamp else {  // the stamp is the first field of both
            return .failure("its accessor reported success but did not write the stamp it was given")
        }
        return isValue ? .value : .text
    }
}
