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
            serviceNamed: "BeeHiveTests.TypedGreeter", file: "A/B.swift", line: 7, upcast: { $0 }), to: out, type: type,
        hint: hint)
}

protocol RegisteredGreeter { func greet() -> String }
/// Registered from its Swift record's typed record only (no other suite names it: typed records are process-wide).
struct RegisteredGreeterImpl: RegisteredGreeter, ServiceImplementation {
    func greet() -> String { "registered" }
}

/// What `@BeeHiveService(RegisteredGreeter.self)` writes as the accessor of its Swift record.
let registeredGreeterAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    _BeeHiveTypedRecord.write(
        json: #"""
            {"service":"BeeHiveTests.RegisteredGreeter","impl":"BeeHiveTests.RegisteredGreeterImpl",\#
            "file":"A/C.swift","line":9}
            """#,
        .service(
            RegisteredGreeter.self, implementation: RegisteredGreeterImpl.self,
            named: "BeeHiveTests.RegisteredGreeterImpl", serviceNamed: "BeeHiveTests.RegisteredGreeter",
            file: "A/C.swift", line: 9, upcast: { $0 }), to: out, type: type, hint: hint)
}

protocol AliasedGreeter { func greet() -> String }
/// `typealias GreeterNickname = AliasedGreeter`, as a user would write it: the macro cannot see through it.
typealias GreeterNickname = AliasedGreeter
struct AliasedGreeterImpl: AliasedGreeter, ServiceImplementation {
    func greet() -> String { "aliased" }
}

/// What `@BeeHiveService(GreeterNickname.self)` writes: the service's type is the protocol's, its name the alias's.
let aliasedGreeterAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    _BeeHiveTypedRecord.write(
        json: #"""
            {"service":"BeeHiveTests.GreeterNickname","impl":"BeeHiveTests.AliasedGreeterImpl",\#
            "file":"A/D.swift","line":4}
            """#,
        .service(
            GreeterNickname.self, implementation: AliasedGreeterImpl.self, named: "BeeHiveTests.AliasedGreeterImpl",
            serviceNamed: "BeeHiveTests.GreeterNickname", file: "A/D.swift", line: 4, upcast: { $0 }), to: out,
        type: type, hint: hint)
}

@Suite("Swift records (format 3): one record per annotation, found in memory")
struct SwiftRecordTests {
    /// A section of one record (``SwiftRecordSection``), by default `swiftGreeterAccessor`'s.
    static func section(
        recordKind: UInt = 1, accessor: _BeeHiveTypedRecord.Accessor = swiftGreeterAccessor,
        layout: UInt = RecordFormat.swiftTypedLayout
    ) -> [UInt8] {
        SwiftRecordSection.bytes(recordKind: recordKind, accessor: accessor, layout: layout)
    }

    /// The entries of a section; the typed records they point to are kept for the rest of the test process.
    static func texts(of bytes: [UInt8]) -> [SwiftRecords.Entry] {
        bytes.withUnsafeBytes { buffer in
            let section = RecordSection(
                imagePath: "test", sectionName: "swift5_tests", kind: .swiftRecords, bytes: buffer)
            let made = TypedRecords.MadeRecords(capacity: bytes.count / RecordFormat.swiftRecordSize)
            keptRecords.withLock { $0.append(made) }
            var entries: [SwiftRecords.Entry] = []
            SwiftRecords.forEach(in: section, into: made) { entries.append($0) }
            return entries
        }
    }

    /// The batches ``texts(of:)`` moved typed records into.
    static let keptRecords = LockedValue<[TypedRecords.MadeRecords]>([])

    @Test("the accessor gives the JSON text to any reader that asks with StaticString, at the entry's own offset")
    func text() throws {
        let entries = Self.texts(of: Self.section())
        #expect(entries.count == 1, "the zeroed entry is skipped")
        guard case .record(let record, let kind, _, _)? = entries.first else {
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

    @Test("one call gives this copy of BeeHive the text and the typed record, which says what the JSON says")
    func oneCall() {
        guard case .record(_, .services, _, let typed?)? = Self.texts(of: Self.section()).first,
            case .service(let service, let serviceName, let implementation, _, let said) = typed.pointee.payload
        else {
            Issue.record("expected a service record with its typed record")
            return
        }
        #expect(ObjectIdentifier(service) == ObjectIdentifier(TypedGreeter.self))
        #expect(ObjectIdentifier(implementation) == ObjectIdentifier(TypedGreeterImpl.self))
        #expect(serviceName == "BeeHiveTests.TypedGreeter")
        #expect(typed.pointee.name == "BeeHiveTests.TypedGreeterImpl")
        #expect(said.file == "A/B.swift" && said.line == 7 && said.rank == 0 && said.name == nil && said.isComplete)
    }

    @Test("the value an accessor writes begins as its text does: the text is written first, the typed record after it")
    func valueBeginsAsText() {
        #expect(MemoryLayout<SwiftRecords.Value>.offset(of: \.stamp) == MemoryLayout<SwiftRecords.Text>.offset(of: \.0))
        #expect(MemoryLayout<SwiftRecords.Value>.offset(of: \.json) == MemoryLayout<SwiftRecords.Text>.offset(of: \.1))
        #expect(MemoryLayout<SwiftRecords.Value>.offset(of: \.api) == MemoryLayout<SwiftRecords.Text>.offset(of: \.2))
        #expect(SwiftRecords.typedOffset >= MemoryLayout<SwiftRecords.Text>.size)
    }

    @Test("a record whose typed value has another layout (another BeeHive's build) is read as text, and bound by name")
    func otherLayout() throws {
        for layout: UInt in [0, RecordFormat.swiftTypedLayout + 1] {
            let entries = Self.texts(of: Self.section(accessor: registeredGreeterAccessor, layout: layout))
            guard case .record(let record, .services, _, let typed)? = entries.first else {
                Issue.record("expected the service record as text, found \(entries)")
                continue
            }
            #expect(typed == nil, "its accessor is not asked for a value of this BeeHive's layout")
            let service = try RecordParser.parseService(record)
            #expect(service.implementation == "BeeHiveTests.RegisteredGreeterImpl")
        }
        Self.section(accessor: registeredGreeterAccessor, layout: 0).withUnsafeBytes { buffer in
            let section = RecordSection(
                imagePath: "test", imageID: 9_970, sectionName: "swift5_tests", kind: .swiftRecords, bytes: buffer)
            #expect(TypedRecords.PendingSection(section, reporter: nil) == nil, "nor kept for the question by name")
        }
    }

    @Test("an own record registers bound to its implementation and indexed by its service's type, its JSON unparsed")
    func registeredByType() throws {
        let hive = Hive()
        defer { TypedRecords.remove(image: 9_990) }
        let (parsed, problems) = SwiftRecordSection.parse(registeredGreeterAccessor, imageID: 9_990, in: hive)
        #expect(problems.isEmpty)
        let entry = try #require(parsed.services.first)
        #expect(entry.serviceType == ObjectIdentifier(RegisteredGreeter.self))
        guard case .implementation(let implementation, _) = entry.provider else {
            Issue.record("expected the entry bound to its implementation, found \(entry.provider)")
            return
        }
        #expect(ObjectIdentifier(implementation) == ObjectIdentifier(RegisteredGreeterImpl.self))
        let registration = entry.registration
        #expect(registration.service == "BeeHiveTests.RegisteredGreeter")
        #expect(registration.implementation == "BeeHiveTests.RegisteredGreeterImpl")
        #expect(registration.source.annotationFile == "A/C.swift" && registration.source.annotationLine == 9)
        #expect(hive.add(services: parsed.services).isEmpty)
        let indexed = hive.state.withLock {
            $0.typeIndex[TypeKey(type: ObjectIdentifier(RegisteredGreeter.self), name: nil)]
        }
        #expect(indexed === entry, "indexed at registration, before any first use")
        #expect(try hive.createService(RegisteredGreeter.self).greet() == "registered")
    }

    @Test("a service annotated through a typealias resolves by its type; by the protocol's name the miss says why")
    func typealiasResolvesByType() throws {
        let hive = Hive()
        defer { TypedRecords.remove(image: 9_989) }
        let (parsed, problems) = SwiftRecordSection.parse(aliasedGreeterAccessor, imageID: 9_989, in: hive)
        #expect(problems.isEmpty && hive.add(services: parsed.services).isEmpty)
        #expect(try hive.createService(AliasedGreeter.self).greet() == "aliased")
        #expect(try hive.createService(GreeterNickname.self).greet() == "aliased")
        let byName = #expect(throws: HiveError.self) { try hive.createService(named: "BeeHiveTests.AliasedGreeter") }
        #expect(byName?.code == .serviceNotFound)
        #expect(
            byName?.message.contains(
                "BeeHiveTests.AliasedGreeterImpl is annotated with this service, but its record names it "
                    + "BeeHiveTests.GreeterNickname") == true, "\(byName.map(String.init(describing:)) ?? "")")
    }

    @Test("a record of another copy of BeeHive (text only) is read through the text guard, with no typed record")
    func textOnly() throws {
        let foreign: _BeeHiveTypedRecord.Accessor = { out, type, hint in
            guard type.load(as: Any.Type.self) == StaticString.self, let hint else { return false }
            out.initializeMemory(
                as: SwiftRecords.Text.self,
                to: (hint.load(as: UInt64.self), #"{"service":"A.S","impl":"A.I","file":"A/I.swift","line":3}"#, ""))
            return true
        }
        guard case .record(let record, .services, _, let typed)? = Self.texts(of: Self.section(accessor: foreign)).first
        else {
            Issue.record("expected a service record")
            return
        }
        #expect(typed == nil)
        #expect(try RecordParser.parseService(record).implementation == "A.I")
    }

    @Test("the record kind decides what the text declares: 2 a module, 3 a route")
    func kinds() {
        for (raw, expected) in [(UInt(2), RecordKind.modules), (3, .routes)] {
            guard case .record(_, let kind, _, _)? = Self.texts(of: Self.section(recordKind: raw)).first else {
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
