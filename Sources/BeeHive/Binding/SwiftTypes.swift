import _BeeHiveScanner

/// The nominal types and protocols of the loaded Swift images, read from the metadata sections each image
/// registered with the Swift runtime: how BeeHive finds types by name without the runtime's scan per name.
public enum SwiftTypes {
    /// What a named declaration is.
    public enum Kind: Sendable, Hashable {
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
    public struct Entry: @unchecked Sendable, Hashable {
        /// Its module-qualified name: `Module.Outer.Inner`.
        public let name: String
        /// What it is.
        public let kind: Kind
        /// Whether it has generic parameters (such a type has no metadata without its arguments).
        public let isGeneric: Bool
        /// The base address of the image that defines it.
        public let image: UnsafeRawPointer?
        let descriptor: UnsafeRawPointer

        /// The path of the image that defines it.
        public var imagePath: String? { image.flatMap(bh_image_path).map { String(cString: $0) } }

        /// The type, for a non-generic class, struct or enum: from its own metadata access function, no look-up.
        public var type: (any Any.Type)? {
            guard kind != .protocol, let metadata = bh_swift_type_metadata(descriptor) else { return nil }
            return unsafeBitCast(metadata, to: Any.Type.self)
        }

        /// Whether `type` conforms to this protocol, as the Swift runtime decides (without creating an instance).
        public func isConformed(by type: any Any.Type) -> Bool {
            kind == .protocol && bh_swift_conforms(unsafeBitCast(type, to: UnsafeRawPointer.self), descriptor) != 0
        }
    }

    /// Every named type and protocol of `module` (of every module when nil) in the loaded images, or nil when the
    /// Swift runtime cannot enumerate its images. Types that are private, local or declared in an extension have
    /// no name by which a record could reach them and are left out.
    public static func entries(inModule module: String?) -> [Entry]? {
        final class Collector {
            var entries: [Entry] = []
        }
        let collector = Collector()
        let visit: bh_swift_type_fn = { context, type in
            guard let context, let type = type?.pointee, let kind = Kind(type.kind) else { return }
            let name = String(
                decoding: UnsafeRawBufferPointer(start: type.name, count: type.name_length), as: UTF8.self)
            Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().entries.append(
                Entry(
                    name: name, kind: kind, isGeneric: type.is_generic != 0, image: type.image,
                    descriptor: type.descriptor))
        }
        let available = withExtendedLifetime(collector) {
            let context = Unmanaged.passUnretained(collector).toOpaque()
            if let module { return module.withCString { bh_swift_types($0, visit, context) } }
            return bh_swift_types(nil, visit, context)
        }
        return available != 0 ? collector.entries : nil
    }
}

/// The protocol conformances that the loaded Swift images declare, read from the metadata sections they registered
/// with the Swift runtime: with them, a conformance is found once per module instead of by a scan per question.
public enum SwiftConformances {
    /// One conformance: the type's and the protocol's context descriptors, and the conformance descriptor.
    public struct Record: @unchecked Sendable {
        public let type: UnsafeRawPointer
        public let `protocol`: UnsafeRawPointer
        public let conformance: UnsafeRawPointer
    }

    /// Every unconditional conformance of a non-generic type of `module`, in every loaded image; nil when the Swift
    /// runtime cannot enumerate its images.
    public static func records(ofModule module: String) -> [Record]? {
        final class Collector {
            var records: [Record] = []
        }
        let collector = Collector()
        let available = withExtendedLifetime(collector) {
            module.withCString { name in
                bh_swift_conformances(
                    name,
                    { context, type, proto, conformance in
                        guard let context, let type, let proto, let conformance else { return }
                        Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().records.append(
                            Record(type: type, protocol: proto, conformance: conformance))
                    }, Unmanaged.passUnretained(collector).toOpaque())
            }
        }
        return available != 0 ? collector.records : nil
    }

    /// The context descriptor of a class, struct or enum type, and the name of its module.
    public static func descriptor(of metadata: UnsafeRawPointer) -> (descriptor: UnsafeRawPointer, module: String)? {
        guard let descriptor = bh_swift_type_descriptor(metadata), let module = bh_swift_module_name(descriptor) else {
            return nil
        }
        return (descriptor, String(cString: module))
    }

    /// The witness table of the type `metadata` for `conformance`.
    public static func witnessTable(
        _ conformance: UnsafeRawPointer, for metadata: UnsafeRawPointer
    ) -> UnsafeRawPointer? {
        bh_swift_witness_table(conformance, metadata)
    }
}
