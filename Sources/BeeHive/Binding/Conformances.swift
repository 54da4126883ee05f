internal import _BeeHiveDiscovery

/// Finds conformances and makes existentials without the Swift runtime's conformance scan.
///
/// A dynamic cast to a protocol (`instance as? Service`, `type as? any ServiceImplementation.Type`) makes the runtime
/// scan every conformance record of the process the first time it is asked about a type: a few hundred thousand
/// instructions per service. The first time a type of a module is asked about here, the conformance records of that
/// module are read once (``SwiftConformances``); a conformance then costs a dictionary look-up and
/// `swift_getWitnessTable`, and the existential is assembled from the value and the witness table.
///
/// Only the common shapes are assembled: a single protocol without a superclass constraint, implemented
/// unconditionally by a non-generic type. Anything else returns nil, and the caller falls back to the cast.
enum Conformances {
    private struct Key: Hashable {
        let type: UnsafeRawPointer
        let `protocol`: UnsafeRawPointer
    }

    /// Conformance descriptors, by module; a module is read again when the loader has loaded images since.
    private static let modules = LockedValue<[String: (loadedImages: UInt64, records: [Key: UnsafeRawPointer])]>([:])

    /// The metadata address of a type.
    static func metadata(of type: any Any.Type) -> UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: UInt(bitPattern: ObjectIdentifier(type)))!
    }

    /// The witness table of `type`'s conformance to the protocol `protocolDescriptor`, or nil when its module
    /// declares none that is unconditional.
    static func witnessTable(of type: any Any.Type, to protocolDescriptor: UnsafeRawPointer) -> UnsafeRawPointer? {
        let metadata = metadata(of: type)
        guard let (descriptor, module) = SwiftConformances.descriptor(of: metadata) else { return nil }
        let key = Key(type: descriptor, protocol: protocolDescriptor)
        let loaded = TypeLookup.loadedImageCount
        let known = modules.withLock { $0[module] }
        var conformance = known?.records[key]
        if conformance == nil, known?.loadedImages != loaded {
            guard let records = SwiftConformances.records(ofModule: module) else { return nil }
            var table: [Key: UnsafeRawPointer] = [:]
            table.reserveCapacity(records.count)
            for record in records { table[Key(type: record.type, protocol: record.protocol)] = record.conformance }
            modules.withLock { $0[module] = (loaded, table) }
            conformance = table[key]
        }
        return conformance.flatMap { SwiftConformances.witnessTable($0, for: metadata) }
    }

    /// The shape of an existential type `Existential` that can be assembled here: its one protocol, and whether it
    /// is class-bound. Nil for compositions, superclass constraints, `Error` and non-existential types.
    static func singleProtocol<Existential>(
        of existential: Existential.Type
    ) -> (descriptor: UnsafeRawPointer, isClassBound: Bool)? {
        let metadata = metadata(of: existential)
        guard metadata.load(as: UInt.self) == 0x303 else { return nil }  // MetadataKind.existential
        let flags = metadata.load(fromByteOffset: 8, as: UInt32.self)
        let protocols = metadata.load(fromByteOffset: 12, as: UInt32.self)
        // One protocol, one witness table, no superclass constraint, no special protocol (Error).
        guard protocols == 1, flags & 0x00FF_FFFF == 1, flags & 0x7F00_0000 == 0 else { return nil }
        let isClassBound = flags & 0x8000_0000 == 0
        guard MemoryLayout<Existential>.size == (isClassBound ? 16 : 40) else { return nil }
        let reference = metadata.load(fromByteOffset: 16, as: UInt.self)
        guard reference & 1 == 0, let descriptor = UnsafeRawPointer(bitPattern: reference) else { return nil }
        return (descriptor, isClassBound)
    }

    /// `instance` as the existential `Service`, assembled from its value and the witness table its module declares;
    /// nil when that cannot be done here (the caller then casts).
    static func cast<Service>(_ instance: Any, to service: Service.Type) -> Service? {
        guard let (protocolDescriptor, isClassBound) = singleProtocol(of: service) else { return nil }
        let type = Swift.type(of: instance)
        guard let table = witnessTable(of: type, to: protocolDescriptor) else { return nil }
        // `Any` is three words of value buffer and the type's metadata; `any P` adds the witness table after them.
        // A class-bound `any P` is the object reference and the witness table.
        let container = UnsafeMutablePointer<Any>.allocate(capacity: 1)
        container.initialize(to: instance)
        defer { container.deallocate() }
        let raw = UnsafeMutableRawPointer(container)
        guard raw.load(fromByteOffset: 24, as: UnsafeRawPointer.self) == metadata(of: type) else {
            container.deinitialize(count: 1)
            return nil
        }
        if isClassBound {
            guard type is AnyObject.Type else {
                container.deinitialize(count: 1)
                return nil
            }
            let words = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: 2)
            defer { words.deallocate() }
            words[0] = raw.load(as: UnsafeRawPointer.self)  // the reference, whose ownership moves to the result
            words[1] = table
            return UnsafeMutableRawPointer(words).assumingMemoryBound(to: Service.self).move()
        }
        let existential = UnsafeMutableRawPointer.allocate(byteCount: 40, alignment: 8)
        defer { existential.deallocate() }
        existential.copyMemory(from: raw, byteCount: 32)  // moves the value (and its ownership) out of `container`
        existential.storeBytes(of: table, toByteOffset: 32, as: UnsafeRawPointer.self)
        return existential.assumingMemoryBound(to: Service.self).move()
    }

    /// `type` as an implementation, from the witness table of its conformance to ``ServiceImplementation``; nil when
    /// it cannot be found here (the caller then casts).
    static func implementation(_ type: any Any.Type) -> (any ServiceImplementation.Type)? {
        guard let descriptor = UnsafeRawPointer(bitPattern: serviceImplementation),
            let table = witnessTable(of: type, to: descriptor)
        else { return nil }
        return unsafeBitCast((metadata(of: type), table), to: (any ServiceImplementation.Type).self)
    }

    /// The address of ``ServiceImplementation``'s protocol descriptor.
    private static let serviceImplementation =
        singleProtocol(of: (any ServiceImplementation).self).map {
            UInt(bitPattern: $0.descriptor)
        } ?? 0
}
