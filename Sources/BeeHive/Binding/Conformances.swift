internal import _BeeHiveRuntime

/// Finds conformances and makes existentials without the Swift runtime's conformance scan.
///
/// A dynamic cast to a protocol (`instance as? Service`, `type as? any ServiceImplementation.Type`) makes the runtime
/// scan every conformance record of the process the first time it is asked about a type: a few hundred thousand
/// instructions per service. The first time a type of a module is asked about here, the conformance records of that
/// module are read once (``SwiftConformances``); a conformance then costs a dictionary look-up and
/// `swift_getWitnessTable`, and the existential is assembled from the value and the witness table by
/// `_BeeHiveRuntime`, which knows the containers' layouts. The first conformance so found in each image is compared
/// with the cast's answer (``RuntimeBinding``); in the image that holds BeeHive, BeeHive's own conformance that the
/// compiler resolved is compared instead (``ConformanceAnchor``), which costs no scan.
///
/// Only the common shapes are assembled: a single protocol without a superclass constraint, implemented
/// unconditionally by a non-generic type. Anything else is the cast's answer.
package enum Conformances {
    /// The conformance descriptors of one module, read when the loader had loaded `loadedImages` images (none when
    /// its image is corrupt). Immutable.
    private final class ModuleRecords: @unchecked Sendable {
        let loadedImages: UInt64
        private let table: SwiftConformances.Table?

        init(loadedImages: UInt64, table: SwiftConformances.Table?) {
            self.loadedImages = loadedImages
            self.table = table
        }

        /// The record of `type`'s (a type descriptor) conformance to `protocol` (a protocol descriptor), if any.
        func record(type: UnsafeRawPointer, protocol: UnsafeRawPointer) -> SwiftConformances.Record? {
            table?.record(type: type, protocol: `protocol`)
        }

        /// The record of the conformance to the protocol the walk named of the type named `name`, if any.
        func record(named name: String) -> SwiftConformances.Record? {
            guard let table else { return nil }
            return name.withUTF8Bytes { table.record(named: $0) }
        }
    }

    /// A module (its context descriptor) in one image: a module's name is read only when its records are.
    private struct ModuleKey: TableKey {
        let module: UnsafeRawPointer
        let image: UnsafeRawPointer

        var tableHash: UInt { (UInt(bitPattern: module) &* 0x9E37_79B9_7F4A_7C15 ^ UInt(bitPattern: image)) | 1 }
    }

    /// Conformance descriptors by module and image, read again when a look-up misses after the loader loaded more
    /// images; and by type descriptor, the records of the type's module, so that a type asked about again is not
    /// looked up again (finding its module costs more than the rest of the look-up). In ``KeyedTable``s: a
    /// `Dictionary` keyed by `Key` makes the runtime scan every conformance record for the key's `Hashable`
    /// conformance when it is first made.
    ///
    /// Only the image that holds the type is read: a conformance declared in another image (a plugin's retroactive
    /// one) is not found here, and the cast, which the callers fall back to, finds it.
    private struct Known {
        var modules = KeyedTable<ModuleKey, ModuleRecords>()
        var byType = AddressTable<ModuleRecords>()
        /// The module whose records answered last: the types of one module are usually bound one after another, and
        /// its table answers for a type not yet in `byType` without finding the type's module (~0.7 K instructions).
        var last: ModuleRecords?
        /// Where a walk met the record of BeeHive's own conformance that the compiler resolved
        /// (``ConformanceAnchor``): in the image that holds BeeHive.
        var anchor: SwiftConformances.Record?
    }
    private static let known = LockedValue(Known())
    /// The conformance records of modules in the images registrations were read from, with their implementations by
    /// name (``implementation(named:writtenIn:path:for:)``).
    private static let modulesInOrigins = LockedValue(ModulesInImages<ModuleRecords>())

    /// Where a walk met the record of ``ConformanceAnchor``'s conformance, if one has.
    static var anchorRecord: SwiftConformances.Record? { known.withLock { $0.anchor } }

    /// The metadata address of a type.
    static func metadata(of type: any Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }

    /// The witness table of `type`'s conformance to the protocol `protocolDescriptor`, and the image that declares
    /// it, or nil when its module declares none that is unconditional in an image BeeHive reads.
    private static func witnessTable(
        of type: any Any.Type, to protocolDescriptor: UnsafeRawPointer
    ) -> (table: UnsafeRawPointer, image: UnsafeRawPointer)? {
        let metadata = metadata(of: type)
        guard let descriptor = SwiftConformances.typeDescriptor(of: metadata) else { return nil }
        var module = known.withLock { $0.byType[key: UInt(bitPattern: descriptor)] ?? $0.last }
        var found = module?.record(type: descriptor, protocol: protocolDescriptor)
        if found == nil {
            guard let (moduleDescriptor, image) = SwiftConformances.module(of: descriptor) else { return nil }
            let moduleKey = ModuleKey(module: moduleDescriptor, image: image)
            module = known.withLock { $0.modules[moduleKey] }
            found = module?.record(type: descriptor, protocol: protocolDescriptor)
            if found == nil {
                // Counted after the look-up: an image loaded in between makes the records read again, not missed.
                let loaded = TypeLookup.loadedImageCount
                if module?.loadedImages != loaded {
                    guard let name = SwiftConformances.moduleName(of: descriptor),
                        let read = records(of: moduleKey, named: name, holding: descriptor, loaded: loaded)
                    else { return nil }
                    module = read
                    found = read.record(type: descriptor, protocol: protocolDescriptor)
                }
            }
            known.withLock {
                $0.byType[key: UInt(bitPattern: descriptor)] = module
                $0.last = module
            }
        }
        guard let found, let table = SwiftConformances.witnessTable(found.conformance, for: metadata) else {
            return nil
        }
        return (table, found.image)
    }

    /// The conformance records of `module`, named `name`, in its image, which holds the type `descriptor` (the loader
    /// having loaded `loaded` images), read now and kept. The index of the module's types that a binding by name made,
    /// when one holds that type, tells the module's types apart (a look-up by address, where each type's parents would
    /// be read).
    private static func records(
        of module: ModuleKey, named name: String, holding descriptor: UnsafeRawPointer, loaded: UInt64
    ) -> ModuleRecords? {
        guard
            let table = table(
                ofModule: name, in: module.image, members: TypeLookup.typeIndex(ofModule: name, holding: descriptor))
        else { return nil }
        // One image was read: when it is corrupt (found so now or before), none of its records is used.
        let isCorrupt = RuntimeBinding.corruptImages.contains(UInt(bitPattern: module.image))
        let read = ModuleRecords(loadedImages: loaded, table: isCorrupt ? nil : table)
        known.withLock { $0.modules[module] = read }
        return read
    }

    /// The conformance records of `module` in the image that holds `image`, read now, the anchor's looked for while
    /// none was met; what the walk found wrong with the image is noted (``RuntimeBinding/note(_:)``) and recorded in
    /// `hive` (the shared hive when nil).
    private static func table(
        ofModule module: String, in image: UnsafeRawPointer, members: SwiftTypes.Index? = nil,
        naming: UnsafeRawPointer? = nil, for hive: Hive? = nil
    ) -> SwiftConformances.Table? {
        let sought = known.withLock { $0.anchor == nil } ? anchorDescriptors : nil
        var anchor: SwiftConformances.Record?
        guard
            let table = SwiftConformances.table(
                ofModule: module, in: image, meeting: sought, met: &anchor, members: members, naming: naming)
        else { return nil }
        if let anchor { known.withLock { $0.anchor = $0.anchor ?? anchor } }
        RuntimeBinding.note(table.problems)
        RuntimeBinding.deliver(to: hive)
        return table
    }

    /// The shape of `any ServiceImplementation.Type`: its protocol's conformers are kept by name.
    nonisolated(unsafe) private static let implementationShape: bh_existential_shape? = {
        var shape = bh_existential_shape()
        guard bh_existential_metatype_shape_of(metadata(of: (any ServiceImplementation.Type).self), &shape) != 0,
            MemoryLayout<any ServiceImplementation.Type>.size == shape.size, shape.protocol != nil
        else { return nil }
        return shape
    }()

    /// The implementation named `name` (module-qualified), bound by its conformance to ``ServiceImplementation``
    /// declared in the image `origin`, the one its registration was read from: the binding of a name-bound
    /// registration without an index of the module's types. The first such binding of a module in an image reads the
    /// module's conformance records there (every one of them, which ``box(_:as:path:)`` then finds, and its
    /// implementations by name). Both self-checks of the image are made as a binding by ``TypeLookup`` makes them.
    ///
    /// Nil when the path is ``BindingPath/runtime``, the image has no implementation of that name (a type that does
    /// not conform, a generic one, one in another image), or the image is not trusted: the caller then binds the name
    /// the long way, which says why it fails. What the walk finds wrong with the image is recorded in `hive`.
    static func implementation(
        named name: String, writtenIn origin: TypeLookup.Origin, path: BindingPath, for hive: Hive
    ) -> (any ServiceImplementation.Type)? {
        guard path == .metadata, let shape = implementationShape else { return nil }
        let length = TypeLookup.moduleLength(of: name)
        guard length < name.utf8.count,
            let records = records(ofModuleOf: name, length: length, in: origin, naming: shape.protocol, for: hive),
            let found = records.record(named: name),
            RuntimeBinding.imageState(found.image).map({ $0 == .agreed }) ?? true,
            let metadata = bh_swift_type_metadata(found.type)
        else { return nil }
        let type = unsafeBitCast(metadata, to: Any.Type.self)
        var answer: (any Any.Type)?
        guard TypeLookup.trusts(type, named: name, descriptor: found.type, image: found.image, answer: &answer),
            let table = SwiftConformances.witnessTable(found.conformance, for: metadata)
        else { return nil }
        // The type's other conformances (the service's, next) are looked for in the same records.
        known.withLock { $0.last = records }
        return assembled(
            type, table: table, image: found.image, shape: shape, as: (any ServiceImplementation.Type).self)
    }

    /// The conformance records of the module of `name` (its first `length` UTF-8 bytes) in the image `origin`, with the
    /// conformers of `naming` by name: read when first asked for (an image's records do not change while it is loaded,
    /// and its id is never reused).
    private static func records(
        ofModuleOf name: String, length: Int, in origin: TypeLookup.Origin, naming: UnsafeRawPointer, for hive: Hive
    ) -> ModuleRecords? {
        modulesInOrigins.value(ofModuleOf: name, length: length, inImage: origin.id) { module in
            table(ofModule: module, in: origin.address, naming: naming, for: hive).map {
                ModuleRecords(loadedImages: TypeLookup.loadedImageCount, table: $0)
            }
        }
    }

    /// Whether `type` conforms to the protocol `protocolDescriptor`, decided from the two types alone: from the
    /// conformance records of the type's module (read once per module), else by the Swift runtime, whose first answer
    /// for a type scans every conformance record of the process.
    static func conforms(_ type: any Any.Type, to protocolDescriptor: UnsafeRawPointer) -> Bool {
        witnessTable(of: type, to: protocolDescriptor) != nil
            || bh_swift_conforms_to_protocol(metadata(of: type), protocolDescriptor) != nil
    }

    /// The shape of an existential type `Existential` that can be assembled here: its one protocol, and whether it
    /// is class-bound. Nil for compositions, superclass constraints, `Error` and non-existential types.
    static func singleProtocol<Existential>(
        of existential: Existential.Type
    ) -> (descriptor: UnsafeRawPointer, isClassBound: Bool)? {
        shape(of: existential).map { ($0.protocol, $0.is_class_bound != 0) }
    }

    /// The name of `type` when it is the existential of one Swift protocol (`any P`, class-bound or not), read from the
    /// protocol's descriptor (bounded by the loaded images' segments) and spelt as the runtime prints it: what lets a
    /// service's first request skip asking the runtime to print its name (thousands of instructions). Nil for any other
    /// type, which the runtime names.
    static func existentialName(of type: any Any.Type) -> String? {
        withExistentialName(of: type) { String(decoding: $0, as: UTF8.self) }
    }

    /// What `body` makes of the UTF-8 bytes of the name ``existentialName(of:)`` gives, written on the stack: no string
    /// is made. Nil when `type` is no such existential.
    static func withExistentialName<Result>(
        of type: any Any.Type, _ body: (UnsafeBufferPointer<UInt8>) -> Result?
    ) -> Result? {
        let capacity = 512
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            let length = buffer.withMemoryRebound(to: CChar.self) {
                bh_swift_existential_name(metadata(of: type), $0.baseAddress, capacity)
            }
            return length > 0 ? body(UnsafeBufferPointer(rebasing: buffer[..<length])) : nil
        }
    }

    static func shape<Existential>(of existential: Existential.Type) -> bh_existential_shape? {
        var shape = bh_existential_shape()
        guard bh_existential_shape_of(metadata(of: existential), &shape) != 0, shape.protocol != nil,
            MemoryLayout<Existential>.size == shape.size
        else { return nil }
        return shape
    }

    /// Whether two existentials of one shape hold the same type (or reference) and witness table.
    static func sameParts(
        _ shape: bh_existential_shape, metatype: Bool, _ a: UnsafeRawPointer, _ b: UnsafeRawPointer
    ) -> Bool {
        var (typeA, tableA, typeB, tableB): (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?)
        withUnsafePointer(to: shape) { shape in
            bh_existential_parts(shape, metatype ? 1 : 0, a, &typeA, &tableA)
            bh_existential_parts(shape, metatype ? 1 : 0, b, &typeB, &tableB)
        }
        return typeA == typeB && tableA == tableB
    }

    /// `instance` as the existential `Service`, boxed: assembled from its value and the witness table its module
    /// declares, or by the cast when the path is ``BindingPath/runtime``, the shape is not one assembled here, or
    /// the image's self-check disagreed. Boxed, not a `Service?`: unspecialized, an optional of `Service` would
    /// instantiate `Optional<Service>`'s metadata at the first use of every service.
    static func box<Service>(
        _ instance: Any, as service: Service.Type, path: BindingPath
    ) -> TypedInstance? {
        guard path == .metadata, let shape = shape(of: service) else { return runtimeCast(instance, to: service) }
        let type = Swift.type(of: instance)
        guard shape.is_class_bound == 0 || type is AnyObject.Type,
            let found = witnessTable(of: type, to: shape.protocol)
        else { return runtimeCast(instance, to: service) }
        // On the stack: `Any` is three words of value buffer and the type's metadata (`_BeeHiveRuntime` reads and
        // writes it), and the existential is at most five words. No `Service?` is made: unspecialized, it would
        // instantiate `Optional<Service>`'s metadata.
        return withUnsafeTemporaryAllocation(byteCount: MemoryLayout<Any>.size + shape.size, alignment: 8) { buffer in
            let any = buffer.baseAddress!.initializeMemory(as: Any.self, to: instance)
            guard bh_any_type(any) == metadata(of: type) else {
                any.deinitialize(count: 1)
                return runtimeCast(instance, to: service)
            }
            let existential = buffer.baseAddress! + MemoryLayout<Any>.size
            // The value (and its ownership) moves out of `any` into the existential; `any` is not destroyed.
            withUnsafePointer(to: shape) { bh_existential_make($0, any, found.table, existential) }
            let made = existential.assumingMemoryBound(to: Service.self).move()
            if agrees(made, with: instance as? Service, shape, metatype: false, image: found.image, type: type) {
                return TypedInstance(made)
            }
            return runtimeCast(instance, to: service)
        }
    }

    /// `type` as the existential metatype `Metatype` (`any P.Type`): from the witness table its module declares, or
    /// by the cast as for ``box(_:as:path:)``. The binding of module and route handler types.
    package static func metatype<Metatype>(
        _ type: any Any.Type, as metatype: Metatype.Type, path: BindingPath
    ) -> Metatype? {
        var shape = bh_existential_shape()
        guard path == .metadata, bh_existential_metatype_shape_of(metadata(of: metatype), &shape) != 0,
            MemoryLayout<Metatype>.size == shape.size, let found = witnessTable(of: type, to: shape.protocol)
        else { return runtimeMetatypeCast(type, to: metatype) }
        return assembled(type, table: found.table, image: found.image, shape: shape, as: metatype)
    }

    /// `type` as the existential metatype `Metatype` of shape `shape`, assembled with the witness table `table` of its
    /// conformance declared in `image`, when the image's self-check trusts it; else the cast's answer.
    private static func assembled<Metatype>(
        _ type: any Any.Type, table: UnsafeRawPointer, image: UnsafeRawPointer, shape: bh_existential_shape,
        as metatype: Metatype.Type
    ) -> Metatype? {
        let made = withUnsafeTemporaryAllocation(byteCount: shape.size, alignment: 8) { existential in
            bh_existential_metatype_make(metadata(of: type), table, existential.baseAddress!)
            return existential.baseAddress!.load(as: Metatype.self)
        }
        if agrees(made, with: type as? Metatype, shape, metatype: true, image: image, type: type) { return made }
        return runtimeMetatypeCast(type, to: metatype)
    }

    /// Whether the image's self-check trusts the assembled existential `made`. The image that holds BeeHive is
    /// checked against the conformance the compiler resolved there (``compiledVerdict(in:)``); any other, by whether
    /// the cast's answer, asked only while the image is being checked, holds the same type (or reference) and witness
    /// table.
    private static func agrees<T>(
        _ made: T, with cast: @autoclosure () -> T?, _ shape: bh_existential_shape, metatype: Bool,
        image: UnsafeRawPointer, type: any Any.Type
    ) -> Bool {
        var anchored = false
        return RuntimeBinding.selfCheck(
            image: image, .conformance,
            what: anchored ? "BeeHive's own conformance \(ConformanceAnchor.name)" : "the conformance of \(type)"
        ) {
            if let verdict = compiledVerdict(in: image) {
                anchored = true
                return verdict
            }
            guard var cast = cast() else { return false }
            var assembled = made
            return withUnsafePointer(to: &cast) { a in
                withUnsafePointer(to: &assembled) { b in
                    sameParts(shape, metatype: metatype, UnsafeRawPointer(a), UnsafeRawPointer(b))
                }
            }
        }
    }

    private static func runtimeCast<T>(_ value: Any, to: T.Type) -> TypedInstance? {
        RuntimeBinding.countRuntime(.conformance)
        return (value as? T).map(TypedInstance.init)
    }

    private static func runtimeMetatypeCast<T>(_ type: any Any.Type, to: T.Type) -> T? {
        RuntimeBinding.countRuntime(.conformance)
        return type as? T
    }

    /// `type` as an implementation, from the witness table of its conformance to ``ServiceImplementation``, or by the
    /// cast.
    static func implementation(_ type: any Any.Type, path: BindingPath) -> (any ServiceImplementation.Type)? {
        metatype(type, as: (any ServiceImplementation.Type).self, path: path)
    }
}
