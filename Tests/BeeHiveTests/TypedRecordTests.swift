import Synchronization
import Testing
@_spi(Testing) import _BeeHiveDiscovery

@testable import BeeHive

protocol TypedGreeter { func greet() -> String }
/// Reached through a typed record only: its conformances are never looked up.
struct TypedGreeterImpl: TypedGreeter, ServiceImplementation {
    func greet() -> String { "typed" }
}

/// Registered by name in place of the implementation that the typed record names.
final class OtherGreeterImpl: TypedGreeter, ServiceImplementation {
    func greet() -> String { "other" }
}

/// What `@BeeHiveService(TypedGreeter.self)` writes as the accessor of its typed record.
let typedGreeterAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    _BeeHiveTypedRecord.write(
        .service(
            TypedGreeter.self, implementation: TypedGreeterImpl.self, named: "BeeHiveTests.TypedGreeterImpl",
            serviceNamed: "BeeHiveTests.TypedGreeter", upcast: { $0 }), to: out, type: type, hint: hint)
}

protocol CountedTypedService: AnyObject {}
let liveCountedTyped = Atomic<Int>(0)
/// A singleton reached through a typed record, counted while it lives.
final class CountedTypedImpl: CountedTypedService, ServiceImplementation {
    static var isSingleton: Bool { true }
    init() { liveCountedTyped.add(1, ordering: .relaxed) }
    deinit { liveCountedTyped.subtract(1, ordering: .relaxed) }
}

/// What `@BeeHiveService(CountedTypedService.self)` writes as the accessor of its typed record.
let countedTypedAccessor: _BeeHiveTypedRecord.Accessor = { out, type, hint in
    _BeeHiveTypedRecord.write(
        .service(
            CountedTypedService.self, implementation: CountedTypedImpl.self, named: "BeeHiveTests.CountedTypedImpl",
            serviceNamed: "BeeHiveTests.CountedTypedService", upcast: { $0 }), to: out, type: type, hint: hint)
}

@Suite("Typed records (the Swift macros' second record)", .serialized)
struct TypedRecordTests {
    /// A `beehive_types` section of one record (and a padding entry), as the scanner hands it over.
    static func section(
        magic: UInt32 = _BeeHiveTypedRecord.magic, accessor: _BeeHiveTypedRecord.Accessor = typedGreeterAccessor
    ) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        withUnsafeBytes(of: magic.littleEndian) { bytes.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: _BeeHiveTypedRecord.layoutVersion.littleEndian) { bytes.replaceSubrange(4..<8, with: $0) }
        let address = UInt(bitPattern: unsafeBitCast(accessor, to: UnsafeRawPointer.self))
        withUnsafeBytes(of: address) { bytes.replaceSubrange(8..<16, with: $0) }
        return bytes
    }

    /// Hands `section(magic:accessor:)` to the typed records, as the scanner does for an image `image`.
    static func addSection(
        image: UInt64, magic: UInt32 = _BeeHiveTypedRecord.magic,
        accessor: _BeeHiveTypedRecord.Accessor = typedGreeterAccessor
    ) {
        section(magic: magic, accessor: accessor).withUnsafeBytes { buffer in
            TypedRecords.add(
                RecordSection(
                    imagePath: "/test", imageID: image, sectionName: "beehive_types", kind: .types, bytes: buffer))
        }
    }

    @Test("a typed record binds its implementation's name to the type, and the service resolves without a cast")
    func typedRecordBindsTheName() throws {
        Self.addSection(image: 9_999)
        #expect(TypeLookup.type(named: "BeeHiveTests.TypedGreeterImpl") == TypedGreeterImpl.self)
        let typed = try #require(TypedRecords.implementation(named: "BeeHiveTests.TypedGreeterImpl"))
        #expect(typed.services.maker(for: ObjectIdentifier(TypedGreeter.self)) != nil)

        let hive = Hive()
        try hive.register(service: "BeeHiveTests.TypedGreeter", impl: "BeeHiveTests.TypedGreeterImpl")
        #expect(try hive.createService(TypedGreeter.self).greet() == "typed")

        TypedRecords.remove(image: 9_999)
        #expect(TypedRecords.implementation(named: "BeeHiveTests.TypedGreeterImpl") == nil)
    }

    @Test("a typed record's singleton asked for by name, again, then by type: one instance, released with its hive")
    func singletonByNameThenByType() throws {
        Self.addSection(image: 9_993, accessor: countedTypedAccessor)
        defer { TypedRecords.remove(image: 9_993) }
        let before = liveCountedTyped.load(ordering: .relaxed)
        do {
            let hive = Hive()
            try hive.register(service: "BeeHiveTests.CountedTypedService", impl: "BeeHiveTests.CountedTypedImpl")
            // The first request by name makes the instance with the typed record's maker and drops the box it made
            // for the service; the second takes the shared instance from the slot.
            let first = try hive.createService(named: "BeeHiveTests.CountedTypedService") as? CountedTypedImpl
            let again = try hive.createService(named: "BeeHiveTests.CountedTypedService") as? CountedTypedImpl
            let byType = try hive.createService(CountedTypedService.self)
            #expect(first != nil && first === again && again === byType)
            #expect(liveCountedTyped.load(ordering: .relaxed) == before + 1)
        }
        #expect(liveCountedTyped.load(ordering: .relaxed) == before)
    }

    @Test("a typed record is found by its service's type, and only for the implementation it names")
    func typedRecordByServiceType() throws {
        Self.addSection(image: 9_995)
        let service = ObjectIdentifier(TypedGreeter.self)
        #expect(TypedRecords.serviceName(of: service) == "BeeHiveTests.TypedGreeter")
        let typed = try #require(TypedRecords.implementation(named: "BeeHiveTests.TypedGreeterImpl", service: service))
        #expect(typed.implementation == TypedGreeterImpl.self)
        #expect(typed.services.maker(for: service) != nil)
        // Another implementation, registered by name for the same service: the typed record does not answer for it.
        #expect(TypedRecords.implementation(named: "BeeHiveTests.OtherGreeterImpl", service: service) == nil)

        let hive = Hive()
        try hive.register(service: "BeeHiveTests.TypedGreeter", impl: "BeeHiveTests.OtherGreeterImpl")
        #expect(try hive.createService(TypedGreeter.self).greet() == "other")

        TypedRecords.remove(image: 9_995)
        #expect(TypedRecords.serviceName(of: service) == nil)
        #expect(TypedRecords.implementation(named: "BeeHiveTests.TypedGreeterImpl", service: service) == nil)
    }

    @Test("a record written under a typealias's name: the miss and validate() say so")
    func typealiasInPlaceOfTheProtocol() throws {
        Self.addSection(image: 9_997)
        defer { TypedRecords.remove(image: 9_997) }
        let hive = Hive()
        // What `@BeeHiveService(GreeterAlias.self)` writes when `typealias GreeterAlias = TypedGreeter`: a record
        // whose file is the Swift file of the annotation.
        Self.addRecord(service: "BeeHiveTests.GreeterAlias", writtenIn: "BeeHiveTests/TypedRecordTests.swift", to: hive)
        let missing = #expect(throws: HiveError.self) { try hive.createService(TypedGreeter.self) }
        #expect(missing?.code == .serviceNotFound)
        #expect(
            missing?.message.contains(
                "BeeHiveTests.TypedGreeterImpl is annotated with this service, but its record names it "
                    + "BeeHiveTests.GreeterAlias") == true)
        let invalid = #expect(throws: HiveError.self) { try hive.validate() }
        #expect(invalid?.message.contains("a typealias gives the alias's name") == true)
        #expect(invalid?.message.contains("(BeeHiveTests.TypedGreeter)") == true)
    }

    /// Registers, as a scan would, a record of `BeeHiveTests.TypedGreeterImpl` for `service` written in `file`.
    static func addRecord(service: String, writtenIn file: String, to hive: Hive) {
        let registration = ServiceRegistration(
            service: service, name: nil, implementation: "BeeHiveTests.TypedGreeterImpl",
            source: .annotation(image: "/test", section: "beehive_services", offset: 0, file: file, line: 3))
        _ = hive.add(services: [ServiceEntry(registration, .typeName(registration.implementation))])
    }

    @Test("a C record's misspelt service, for an implementation a Swift annotation also names: a typo, no typealias")
    func misspeltServiceInAnotherRecord() throws {
        Self.addSection(image: 9_996)
        defer { TypedRecords.remove(image: 9_996) }
        let hive = Hive()
        Self.addRecord(service: "BeeHiveTests.TypedGreetr", writtenIn: "annotations.c", to: hive)
        let missing = #expect(throws: HiveError.self) { try hive.createService(TypedGreeter.self) }
        #expect(missing?.code == .serviceNotFound)
        #expect(missing?.message.contains("typealias") == false, "\(missing.map(String.init(describing:)) ?? "")")
        let invalid = #expect(throws: HiveError.self) { try hive.validate() }
        let message = invalid?.message ?? ""
        #expect(!message.contains("typealias"), "\(message)")
        #expect(message.contains("expected a type named BeeHiveTests.TypedGreetr"), "\(message)")
        #expect(message.contains("Did you mean `BeeHiveTests.TypedGreeter`?"), "\(message)")
        #expect(!message.contains("internal structs"), "a protocol is no struct the optimizer removes: \(message)")
    }

    @Test("entries without the magic are padding: nothing is called")
    func zeroedEntriesAreSkipped() {
        Self.addSection(image: 9_998, magic: 0)
        #expect(TypedRecords.implementation(named: "BeeHiveTests.TypedGreeterImpl") == nil)
    }
}
