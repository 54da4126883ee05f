import Testing
@_spi(Testing) import _BeeHiveDiscovery

@testable import BeeHive

/// What `@BeeHiveService(TypedGreeter.self)` writes as the accessor of its Swift record (format 3).
let swiftGreeterAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    _BeeHiveTypedRecord.write(
        json: #"""
            {"service":"BeeHiveTests.TypedGreeter","impl":"BeeHiveTests.TypedGreeterImpl",\#
            "file":"A/B.swift","line":7}
            """#,
        .service(
            TypedGreeter.self, implementation: TypedGreeterImpl.self, named: "BeeHiveTests.TypedGreeterImpl",
            serviceNamed: "BeeHiveTests.TypedGreeter", upcast: { $0 }), to: out, type: type, hint: hint)
}

@Suite("Swift records (format 3): one record per annotation, found in memory")
struct SwiftRecordTests {
    /// A `swift5_tests` section as the scanner hands it over: a zeroed entry (another library's), then one record.
    static func section(recordKind: UInt = 1, accessor: _BeeHiveTypedRecord.Accessor = swiftGreeterAccessor) -> [UInt8]
    {
        var bytes = [UInt8](repeating: 0, count: 64)
        withUnsafeBytes(of: RecordFormat.swiftRecordKind.littleEndian) { bytes.replaceSubrange(32..<36, with: $0) }
        withUnsafeBytes(of: RecordFormat.swiftRecordVersion.littleEndian) { bytes.replaceSubrange(36..<40, with: $0) }
        let address = UInt(bitPattern: unsafeBitCast(accessor, to: UnsafeRawPointer.self))
        withUnsafeBytes(of: address) { bytes.replaceSubrange(40..<48, with: $0) }
        withUnsafeBytes(of: recordKind) { bytes.replaceSubrange(48..<56, with: $0) }
        return bytes
    }

    static func texts(of bytes: [UInt8]) -> [SwiftRecords.Entry] {
        bytes.withUnsafeBytes { buffer in
            let section = RecordSection(
                imagePath: "test", sectionName: "swift5_tests", kind: .swiftRecords, bytes: buffer)
            var entries: [SwiftRecords.Entry] = []
            SwiftRecords.forEachText(in: section) { entries.append($0) }
            return entries
        }
    }

    @Test("the accessor gives the JSON text to any reader that asks with StaticString, at the entry's own offset")
    func text() throws {
        let entries = Self.texts(of: Self.section())
        #expect(entries.count == 1, "the zeroed entry is skipped")
        guard case .record(let record, let kind, _)? = entries.first else {
            Issue.record("expected a record, found \(entries)")
            return
        }
        #expect(kind == .services)
        #expect(record.offset == 32)
        let service = try RecordParser.parseService(record)
        #expect(service.service == "BeeHiveTests.TypedGreeter")
        #expect(service.implementation == "BeeHiveTests.TypedGreeterImpl")
        #expect(service.location?.line == 7)
    }

    @Test("the record kind decides what the text declares: 2 a module, 3 a route")
    func kinds() {
        for (raw, expected) in [(UInt(2), RecordKind.modules), (3, .routes)] {
            guard case .record(_, let kind, _)? = Self.texts(of: Self.section(recordKind: raw)).first else {
                Issue.record("expected a record of kind \(raw)")
                continue
            }
            #expect(kind == expected)
        }
    }

    @Test("an accessor that refuses, or says it wrote without the stamp, is a failure at its offset")
    func failures() {
        let refuses: _BeeHiveTypedRecord.Accessor = { _, _, _ in false }
        let silent: _BeeHiveTypedRecord.Accessor = { _, _, _ in true }
        for (accessor, expected) in [(refuses, "gives no JSON text"), (silent, "did not write the stamp")] {
            guard case .failure(let offset, let reason)? = Self.texts(of: Self.section(accessor: accessor)).first
            else {
                Issue.record("expected a failure (\(expected))")
                continue
            }
            #expect(offset == 32)
            #expect(reason.contains(expected), "\(reason)")
        }
    }

    @Test("the same accessor makes the typed record for this copy's _BeeHiveTypedRecord, and nothing for another type")
    func typed() {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
        defer { buffer.deallocate() }
        var stamp: UInt64 = 42
        var other: any Any.Type = Int.self
        let wrote = withUnsafePointer(to: &other) { type in
            withUnsafePointer(to: &stamp) { swiftGreeterAccessor(buffer, UnsafeRawPointer(type), UnsafeRawPointer($0)) }
        }
        #expect(!wrote)
        var expected: any Any.Type = _BeeHiveTypedRecord.self
        let made = withUnsafePointer(to: &expected) { type in
            withUnsafePointer(to: &stamp) { swiftGreeterAccessor(buffer, UnsafeRawPointer(type), UnsafeRawPointer($0)) }
        }
        #expect(made)
        let record = buffer.assumingMemoryBound(to: _BeeHiveTypedRecord.self).move()
        #expect(record.stamp == 42)
        #expect(record.name == "BeeHiveTests.TypedGreeterImpl")
    }

    /// The hostile entries of `Tests/Annotations/swift_records.c`, in this binary's swift5_tests section.
    @Test(
        "each malformed record of this binary is reported with its section and offset; another library's is not",
        arguments: [
            "expected version 3", "expected record kind 1 (service), 2 (module), 3 (route) or 4 (API)",
            "expected its accessor inside an executable segment", "gives no JSON text", "did not write the stamp",
        ])
    func hostileEntries(_ expected: String) {
        Hive.shared.rescan()
        let matching = Hive.shared.diagnostics.filter {
            $0.message.contains("swift5_tests") && $0.message.contains(expected)
        }
        #expect(matching.count == 1, "\(Hive.shared.diagnostics.map(\.message))")
        #expect(matching.first?.severity == .error)
        #expect(matching.first.map { "\($0)".contains("offset") } == true)
    }
}
