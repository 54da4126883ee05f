/// What a typed record's accessor makes: the type behind one annotation, so that its first use needs no
/// look-up by name and no dynamic conformance check. Written by the Swift macros (`@BeeHiveService`,
/// `@BeeHiveMod`, `@BeeHiveRoute`); not for direct use.
///
/// A typed record is 16 bytes in the `beehive_types` section: a `UInt32` magic (``magic``), a `UInt32`
/// layout version (``layoutVersion``), and an ``Accessor`` that initialises a `_BeeHiveTypedRecord` at the
/// address it is given. Each typed record accompanies a JSON record of the same annotation (see
/// `Docs/RecordFormat.md`), which it joins by the implementation's name.
///
/// ```swift
/// @section("beehive_types") @used
/// private let record: (UInt32, UInt32, _BeeHiveTypedRecord.Accessor) = (
///     _BeeHiveTypedRecord.magic, _BeeHiveTypedRecord.layoutVersion,
///     { $0.initializeMemory(as: _BeeHiveTypedRecord.self, to: .service(Tracker.self, implementation: Console.self,
///         named: "App.Console", upcast: { $0 })) })
/// ```
public struct _BeeHiveTypedRecord: Sendable {
    /// A function that initialises a `_BeeHiveTypedRecord` at the given address.
    public typealias Accessor = @convention(c) (UnsafeMutableRawPointer) -> Void

    /// The first field of every typed record: "BHTR" read as a little-endian `UInt32`.
    public static let magic: UInt32 = 0x5254_4842

    /// The layout of `_BeeHiveTypedRecord` that accessors of this library make; a record of another version is
    /// reported and skipped.
    public static let layoutVersion: UInt32 = 1

    enum Payload: Sendable {
        /// An implementation of the service `service`, and how to box one of its instances as that service.
        case service(
            service: any Any.Type, implementation: any ServiceImplementation.Type,
            box: @Sendable (Any) -> AnyObject?)
        /// A module or route handler type.
        case type(any Any.Type)
    }

    /// The module-qualified name of the implementation, module or handler type, exactly as its JSON record
    /// writes it.
    let name: StaticString
    let payload: Payload

    /// The record of an implementation of `service`.
    ///
    /// - Parameters:
    ///   - service: The service (a protocol), as the annotation names it.
    ///   - implementation: The implementation type.
    ///   - name: `implementation`'s module-qualified name, as the JSON record writes it.
    ///   - upcast: Converts an instance to the service: `{ $0 }`, which the compiler checks.
    /// - Returns: The record.
    public static func service<Service, Implementation: ServiceImplementation>(
        _ service: Service.Type, implementation: Implementation.Type, named name: StaticString,
        upcast: @escaping @Sendable (Implementation) -> Service
    ) -> Self {
        Self(
            name: name,
            payload: .service(
                service: service, implementation: implementation,
                box: { instance in (instance as? Implementation).map { TypedInstance(upcast($0)) } }))
    }

    /// The record of a module or route handler type.
    ///
    /// - Parameters:
    ///   - type: The type.
    ///   - name: Its module-qualified name, as the JSON record writes it.
    /// - Returns: The record.
    public static func type(_ type: any Any.Type, named name: StaticString) -> Self {
        Self(name: name, payload: .type(type))
    }
}
