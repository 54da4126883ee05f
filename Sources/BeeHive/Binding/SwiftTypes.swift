internal import _BeeHiveRuntime

/// The nominal types and protocols of the loaded Swift images, read from the metadata sections each image
/// registered with the Swift runtime (`_BeeHiveRuntime`, which checks every pointer it follows): how BeeHive finds
/// types by name without the runtime's scan per name.
enum SwiftTypes {
    /// What a named declaration is.
    package enum Kind: Sendable, Hashable {
        case `class`, `struct`, `enum`, `protocol`

        init?(_ raw: UInt32) {
            switch raw {
            case 3: self = .protocol
            case 16: self = .class
            case 17: self = .struct
            case 18: self = .enum
            default: return nil
            }
        }
    }

    /// A type or protocol of a loaded image.
    struct Entry: @unchecked Sendable, Hashable {
        /// Its module-qualified name: `Module.Outer.Inner`.
        let name: String
        /// What it is.
        let kind: Kind
        /// Whether it has generic parameters (such a type has no metadata without its arguments).
        let isGeneric: Bool
        /// The lowest address of the image that defines it: the image's identity for the binding.
        let image: UnsafeRawPointer?
        let descriptor: UnsafeRawPointer

        /// The path of the image that defines it.
        var imagePath: String? { image.flatMap(RuntimeImage.path(of:)) }

        /// The same name as the runtime's look-up by mangled name takes it (`6Module5OuterV5InnerC`); nil when it
        /// cannot be spelt so simply (identifiers that need Punycode).
        var mangledName: String? {
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1_024) { buffer in
                let length = bh_swift_mangled_name(descriptor, buffer.baseAddress, buffer.count)
                return length > 0 ? String(cString: buffer.baseAddress!) : nil
            }
        }

        /// The type, for a non-generic class, struct or enum: from its own metadata access function, no look-up.
        var type: (any Any.Type)? {
            guard kind != .protocol, let metadata = bh_swift_type_metadata(descriptor) else { return nil }
            return unsafeBitCast(metadata, to: Any.Type.self)
        }

        /// Whether `type` conforms to this protocol, as the Swift runtime decides (without creating an instance).
        func isConformed(by type: any Any.Type) -> Bool {
            kind == .protocol
                && bh_swift_conforms_to_protocol(unsafeBitCast(type, to: UnsafeRawPointer.self), descriptor) != nil
        }
    }

    /// What a walk of the loaded images found: the entries, and the images it could not read.
    struct Walk {
        var entries: [Entry] = []
        var problems: [RuntimeImage.Problem] = []
    }

    /// Every named type and protocol of `module` (of every module when nil) in the loaded images (only in the one that
    /// holds the address `near`, when given), with the images that could not be read; nil when the Swift runtime
    /// cannot enumerate its images or no loaded image holds `near`. Types that are private, local or declared in an
    /// extension have no name by which a record could reach them and are left out.
    static func entries(inModule module: String?, near: UnsafeRawPointer? = nil) -> Walk? {
        let collector = RuntimeImage.Collector()
        let visit: bh_swift_type_fn = { context, type in
            guard let context, let type = type?.pointee, let kind = Kind(type.kind) else { return }
            let name = String(
                decoding: UnsafeRawBufferPointer(start: type.name, count: type.name_length), as: UTF8.self)
            Unmanaged<RuntimeImage.Collector>.fromOpaque(context).takeUnretainedValue().entries.append(
                Entry(
                    name: name, kind: kind, isGeneric: type.is_generic != 0, image: type.image,
                    descriptor: type.descriptor))
        }
        let available = withExtendedLifetime(collector) {
            let context = Unmanaged.passUnretained(collector).toOpaque()
            guard let module else { return bh_swift_types(nil, near, visit, RuntimeImage.collect, context) }
            return module.withCString { bh_swift_types($0, near, visit, RuntimeImage.collect, context) }
        }
        return available != 0 ? Walk(entries: collector.entries, problems: collector.problems) : nil
    }
}

/// The protocol conformances that the loaded Swift images declare, read from the metadata sections they registered
/// with the Swift runtime: with them, a conformance is found once per module instead of by a scan per question.
enum SwiftConformances {
    /// One conformance: the type's and the protocol's context descriptors, the conformance descriptor, and the image
    /// that declares it.
    struct Record: @unchecked Sendable {
        let type: UnsafeRawPointer
        let `protocol`: UnsafeRawPointer
        let conformance: UnsafeRawPointer
        let image: UnsafeRawPointer
    }

    /// Every unconditional conformance of a non-generic type of `module` declared in `image` (the image's lowest
    /// address), with the problem if the image could not be read; nil when the Swift runtime cannot enumerate its
    /// images.
    static func records(
        ofModule module: String, in image: UnsafeRawPointer
    ) -> (records: [Record], problems: [RuntimeImage.Problem])? {
        let collector = RuntimeImage.Collector()
        let available = withExtendedLifetime(collector) {
            module.withCString { name in
                bh_swift_conformances(
                    name, image,
                    { context, found in
                        guard let context, let found = found?.pointee, let type = found.type,
                            let proto = found.protocol, let conformance = found.conformance, let image = found.image
                        else { return }
                        Unmanaged<RuntimeImage.Collector>.fromOpaque(context).takeUnretainedValue().records.append(
                            Record(type: type, protocol: proto, conformance: conformance, image: image))
                    }, RuntimeImage.collect, Unmanaged.passUnretained(collector).toOpaque())
            }
        }
        return available != 0 ? (collector.records, collector.problems) : nil
    }

    /// The context descriptor of a class, struct or enum type.
    static func typeDescriptor(of metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
        bh_swift_type_descriptor(metadata)
    }

    /// The name of the module that declares the type `descriptor`, and the image that holds it (its lowest address).
    static func module(of descriptor: UnsafeRawPointer) -> (name: String, image: UnsafeRawPointer)? {
        var image: UnsafeRawPointer?
        guard let name = bh_swift_module_name(descriptor, &image), let image else { return nil }
        return (String(cString: name), image)
    }

    /// The witness table of the type `metadata` for `conformance`.
    static func witnessTable(_ conformance: UnsafeRawPointer, for metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
        bh_swift_witness_table(conformance, metadata)
    }
}
