internal import _BeeHiveDiscovery

/// What a typed record's accessor makes: the type behind one annotation, so that its first use needs no
/// look-up by name and no dynamic conformance check. Written by the Swift macros (`@BeeHiveService`,
/// `@BeeHiveMod`, `@BeeHiveRoute`); not for direct use.
///
/// A typed record is 16 bytes in the `beehive_types` section: a `UInt32` magic (``magic``), a `UInt32`
/// layout version (``layoutVersion``), and an ``Accessor``. Each typed record accompanies a JSON record of the
/// same annotation (see `Docs/RecordFormat.md`), which it joins by the implementation's name.
///
/// The accessor takes a guard, as swift-testing's test-content accessors do: the reader passes the type it
/// expects (a pointer to `_BeeHiveTypedRecord.self` as *its* copy of BeeHive sees it) and a hint (a pointer to a
/// `UInt64` stamp), and the accessor writes only when the type is its own, returning whether it wrote. So a
/// record read by another copy of BeeHive in the same process answers "not mine" instead of building a value
/// of a type its reader does not know. The macros' accessor calls ``write(_:to:type:hint:)``:
///
/// ```swift
/// @section("beehive_types") @used
/// private let record: (UInt32, UInt32, _BeeHiveTypedRecord.Accessor) = (
///     0x5254_4842, 5,
///     { out, type, hint in
///         _BeeHiveTypedRecord.write(.service(Tracker.self, implementation: Console.self, named: "App.Console",
///             serviceNamed: "App.Tracker", upcast: { $0 }), to: out, type: type, hint: hint)
///     })
/// ```
public struct _BeeHiveTypedRecord: Sendable {
    /// A function that initialises a `_BeeHiveTypedRecord` at `out` when `type` points to the metatype
    /// `_BeeHiveTypedRecord.self` of the accessor's own copy of BeeHive, and returns whether it did.
    public typealias Accessor =
        @convention(c) (_ out: UnsafeMutableRawPointer, _ type: UnsafeRawPointer, _ hint: UnsafeRawPointer?) -> Bool

    /// The first field of every typed record: "BHTR" read as a little-endian `UInt32` (from `bh_format.h`).
    public static let magic: UInt32 = RecordFormat.typedRecordMagic

    /// The layout of a typed record and of the `_BeeHiveTypedRecord` its accessor makes (from `bh_format.h`);
    /// records of another version are reported and skipped.
    public static let layoutVersion: UInt32 = RecordFormat.typedRecordLayout

    @usableFromInline
    enum Payload: Sendable {
        /// An implementation of the service `service` (whose module-qualified name is `serviceName`), and how to make
        /// one (its shared one when asked) boxed as that service.
        case service(
            service: any Any.Type, serviceName: String, implementation: any ServiceImplementation.Type,
            make: ServiceMaker, registration: Registration)
        /// A module or route handler type.
        case type(any Any.Type)
        /// An implementation of the service that `key` stands for, and how to make one boxed as the key's `Service`.
        /// A case of its own, no larger than `service`, so that the value of an unkeyed record keeps its size.
        case keyedService(
            key: any ServiceKey.Type, implementation: any ServiceImplementation.Type, make: ServiceMaker,
            registration: Registration)
    }

    /// What a service's annotation says besides its types, as its JSON record says it: what lets this copy of
    /// BeeHive register the service without parsing the JSON. String literals of the annotating module: reading them
    /// allocates nothing.
    @usableFromInline
    struct Registration: Sendable {
        /// The registration's name (`name:`), if any.
        let name: String?
        /// Its rank (`rank:`), 0 when the annotation gives none.
        let rank: Int
        /// Where the annotation is written: the file as `#fileID` gives it, and the line.
        let file: String
        let line: Int
        /// Whether these fields are everything the JSON record says: false when the annotation gives properties,
        /// which only the JSON carries (the record is then parsed).
        let isComplete: Bool

        @usableFromInline
        init(name: String?, rank: Int, file: String, line: Int, isComplete: Bool) {
            self.name = name
            self.rank = rank
            self.file = file
            self.line = line
            self.isComplete = isComplete
        }
    }

    /// The reader's stamp, copied from the hint: what tells the reader that this library wrote the value, and
    /// not an accessor that wrote nothing or something else.
    var stamp: UInt64 = 0
    /// The module-qualified name of the implementation, module or handler type, exactly as its JSON record
    /// writes it: a string literal of the annotating module, so reading it allocates nothing.
    let name: String
    let payload: Payload

    @usableFromInline
    init(name: String, payload: Payload) {
        self.name = name
        self.payload = payload
    }

    /// The record of an implementation of `service`.
    ///
    /// Inlined into the annotating module's accessor, where both types are known: the closure it makes creates an
    /// instance and boxes it as the service with no cast and no generic metadata to instantiate at run time.
    ///
    /// - Parameters:
    ///   - service: The service (a protocol), as the annotation names it.
    ///   - implementation: The implementation type.
    ///   - name: `implementation`'s module-qualified name, as the JSON record writes it.
    ///   - serviceName: `service`'s module-qualified name, as the JSON record writes it: the first use of the service
    ///     finds its registration under this name without asking the runtime to name the type.
    ///   - registrationName: The registration's name (`name:`), if the annotation gives one.
    ///   - rank: The registration's rank (`rank:`).
    ///   - file: The file the annotation is written in, as `#fileID` gives it.
    ///   - line: The annotation's line.
    ///   - hasProperties: Whether the annotation gives properties, which only its JSON record carries.
    ///   - upcast: Converts an instance to the service: `{ $0 }`, which the compiler checks.
    /// - Returns: The record.
    @inlinable
    public static func service<Service, Implementation: ServiceImplementation>(
        _ service: Service.Type, implementation: Implementation.Type, named name: String,
        serviceNamed serviceName: String, registrationName: String? = nil, rank: Int = 0, file: String = "",
        line: Int = 0, hasProperties: Bool = false,
        upcast: @escaping @Sendable (Implementation) -> Service
    ) -> Self {
        Self(
            name: name,
            payload: .service(
                service: service, serviceName: serviceName, implementation: implementation,
                make: { shared in
                    let instance = shared ? (Implementation.sharedInstance ?? Implementation()) : Implementation()
                    return (instance, TypedInstance(upcast(instance)))
                },
                registration: Registration(
                    name: registrationName, rank: rank, file: file, line: line,
                    isComplete: !file.isEmpty && line > 0 && !hasProperties)))
    }

    /// The record of an implementation of the service that `key` stands for (`@BeeHiveServiceKey`): registered
    /// under the key and boxed as its `Service`, so that neither the registration nor a first use by the key names
    /// the service's type. The registration names the service as the key does.
    ///
    /// - Parameters:
    ///   - key: The service's key, which `_beeHiveServiceKey(Service.self)` gives where the annotation is compiled.
    ///   - implementation: The implementation type.
    ///   - name: `implementation`'s module-qualified name, as the JSON record writes it.
    ///   - serviceName: The service's name as the annotation writes it; the registration takes the key's.
    ///   - registrationName: The registration's name (`name:`), if the annotation gives one.
    ///   - rank: The registration's rank (`rank:`).
    ///   - file: The file the annotation is written in, as `#fileID` gives it.
    ///   - line: The annotation's line.
    ///   - hasProperties: Whether the annotation gives properties, which only its JSON record carries.
    ///   - upcast: Converts an instance to the service: `{ $0 }`, which the compiler checks.
    /// - Returns: The record.
    @inlinable
    public static func service<Key: ServiceKey, Implementation: ServiceImplementation>(
        _ key: Key.Type, implementation: Implementation.Type, named name: String,
        serviceNamed serviceName: String, registrationName: String? = nil, rank: Int = 0, file: String = "",
        line: Int = 0, hasProperties: Bool = false,
        upcast: @escaping @Sendable (Implementation) -> Key.Service
    ) -> Self {
        Self(
            name: name,
            payload: .keyedService(
                key: key, implementation: implementation,
                make: { shared in
                    let instance = shared ? (Implementation.sharedInstance ?? Implementation()) : Implementation()
                    return (instance, TypedInstance(upcast(instance), key: Key.self))
                },
                registration: Registration(
                    name: registrationName, rank: rank, file: file, line: line,
                    isComplete: !file.isEmpty && line > 0 && !hasProperties)))
    }

    /// The record of a module or route handler type.
    ///
    /// - Parameters:
    ///   - type: The type.
    ///   - name: Its module-qualified name, as the JSON record writes it.
    /// - Returns: The record.
    public static func type(_ type: any Any.Type, named name: String) -> Self {
        Self(name: name, payload: .type(type))
    }

    /// What an accessor does: writes `record` to `out` if the reader asks for this copy's
    /// `_BeeHiveTypedRecord` (`type` points to that metatype) with a stamp (`hint` points to a non-zero
    /// `UInt64`), and says whether it wrote. Builds nothing when the guard fails.
    ///
    /// - Parameters:
    ///   - record: The record, built only when the guard passes.
    ///   - out: Uninitialised memory for a `_BeeHiveTypedRecord`.
    ///   - type: The reader's expected type: a pointer to an `Any.Type` value.
    ///   - hint: The reader's stamp: a pointer to a `UInt64`.
    /// - Returns: Whether `out` was initialised.
    public static func write(
        _ record: @autoclosure () -> Self, to out: UnsafeMutableRawPointer, type: UnsafeRawPointer,
        hint: UnsafeRawPointer?
    ) -> Bool {
        guard type.load(as: Any.Type.self) == Self.self, let hint else { return false }
        let stamp = hint.loadUnaligned(as: UInt64.self)
        guard stamp != 0 else { return false }
        var made = record()
        made.stamp = stamp
        out.initializeMemory(as: Self.self, to: made)
        return true
    }

    /// What a Swift record's accessor does (record format version 3): writes the record's JSON text when the
    /// reader asks for it (`type` points to the metatype `StaticString.self`, which every copy of BeeHive shares),
    /// the text and the typed record at once when `type` points to this copy's value type (its own registration), or
    /// the typed record alone when `type` points to this copy's `_BeeHiveTypedRecord.self`; `hint` points to the
    /// reader's non-zero stamp. Says whether it wrote; builds nothing when the guard fails.
    ///
    /// The text is written as `(stamp: UInt64, json: StaticString, api: StaticString)`.
    ///
    /// - Parameters:
    ///   - json: The record's JSON text, as the macro wrote it.
    ///   - api: For a service, what `_beeHiveAPIVersion(Service.self)` gives where the annotation is compiled: the
    ///     version of the service's API it was built against (`beehive-api:ShopAPI.PriceService@2.1.0`), or `""`
    ///     when the protocol declares none.
    ///   - record: The typed record, built only when asked for.
    ///   - out: Uninitialised memory for the text or the typed record.
    ///   - type: The reader's expected type: a pointer to an `Any.Type` value.
    ///   - hint: The reader's stamp: a pointer to a `UInt64`.
    /// - Returns: Whether `out` was initialised.
    public static func write(
        json: StaticString, api: StaticString = "", _ record: @autoclosure () -> Self, to out: UnsafeMutableRawPointer,
        type: UnsafeRawPointer, hint: UnsafeRawPointer?
    ) -> Bool {
        let expected = type.load(as: Any.Type.self)
        guard expected == StaticString.self || expected == SwiftRecords.Value.self else {
            return write(record(), to: out, type: type, hint: hint)
        }
        guard let hint else { return false }
        let stamp = hint.loadUnaligned(as: UInt64.self)
        guard stamp != 0 else { return false }
        if expected == StaticString.self {
            out.initializeMemory(as: SwiftRecords.Text.self, to: (stamp, json, api))
        } else {
            // Field by field, the typed record made where it is kept: a `Value` built whole, then stored, was copied
            // twice (~60 instructions per record).
            out.initializeMemory(as: SwiftRecords.Text.self, to: (stamp, json, api))
            (out + SwiftRecords.typedOffset).initializeMemory(as: Self.self, to: record())
        }
        return true
    }

    /// Calls `accessor` with a guard, as its readers do: the type they expect and a stamp (random and non-zero, drawn
    /// once per reading: the buffer is zeroed before each call), into `buffer` zeroed over `size` bytes first. Returns
    /// whether the accessor says it wrote; the caller checks that the stamp is where it belongs before it reads
    /// anything else.
    static func call(
        _ accessor: Accessor, expecting expected: any Any.Type, stamp: UInt64, into buffer: UnsafeMutableRawPointer,
        size: Int
    ) -> Bool {
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        var stamp = stamp
        var expected = expected
        let wrote = withUnsafePointer(to: &expected) { type in
            withUnsafePointer(to: &stamp) { hint in accessor(buffer, UnsafeRawPointer(type), UnsafeRawPointer(hint)) }
        }
        return wrote
    }

    /// Where ``stamp`` lies in a record: read as raw bytes before the reader trusts the rest.
    static let stampOffset = MemoryLayout<Self>.offset(of: \Self.stamp)!
}
