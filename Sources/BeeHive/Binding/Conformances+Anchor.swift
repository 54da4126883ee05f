internal import _BeeHiveRuntime

/// The protocol of BeeHive's own conformance that the compiler resolves: implemented by ``ConformanceAnchor`` alone.
protocol AnchoredProtocol {
    var anchorMark: Int { get }
}

/// A type whose one conformance, to ``AnchoredProtocol``, checks BeeHive's reading of conformance records in the image
/// that holds BeeHive: the compiler puts the witness table in the existential it makes, with no look-up. Its descriptor
/// checks BeeHive's reading of type descriptors there: the compiler names its metadata, with no look-up either.
struct ConformanceAnchor: AnchoredProtocol {
    /// The conformance as a diagnostic names it.
    static let name = "BeeHive.ConformanceAnchor: BeeHive.AnchoredProtocol"

    var anchorMark: Int { 0x5EED }

    /// The type self-check of `image` against the type the compiler resolved: whether BeeHive's reading of the anchor's
    /// descriptor gives its name (spelt as the runtime's look-up by mangled name takes it) and, from its access
    /// function, the anchor's metadata. Nil for an image other than the one that holds BeeHive: the runtime's name of
    /// the type bound checks those (a demangling, ~20 K instructions once per image).
    static func typeVerdict(in image: UnsafeRawPointer) -> Bool? {
        guard let descriptor = Conformances.anchorDescriptors?.type,
            SwiftConformances.module(of: descriptor)?.image == image
        else { return nil }
        RuntimeBinding.countCompilerCheck(.type)
        return typeAgrees(descriptor: descriptor)
    }

    /// Whether `descriptor`, read as the anchor's type descriptor, gives the anchor's name and metadata.
    static func typeAgrees(descriptor: UnsafeRawPointer) -> Bool {
        let entry = SwiftTypes.Entry(
            name: "BeeHive.ConformanceAnchor", kind: .struct, isGeneric: false, image: nil, descriptor: descriptor)
        return entry.mangledName == "7BeeHive17ConformanceAnchorV"
            && entry.type.map { ObjectIdentifier($0) == ObjectIdentifier(ConformanceAnchor.self) } == true
    }
}

extension Conformances {
    /// The anchor's type and protocol descriptors: what a walk of conformance records looks for.
    nonisolated(unsafe) static let anchorDescriptors: (type: UnsafeRawPointer, protocol: UnsafeRawPointer)? = {
        guard let type = SwiftConformances.typeDescriptor(of: metadata(of: ConformanceAnchor.self)),
            let proto = shape(of: (any AnchoredProtocol).self)?.protocol
        else { return nil }
        return (type, proto)
    }()

    /// Where a walk met the anchor's conformance record: the image that holds BeeHive, once a walk read it.
    package static var anchorImage: UnsafeRawPointer? { anchorRecord?.image }

    /// The self-check of `image` against the conformance the compiler resolved: whether BeeHive's reading of the
    /// anchor's record gives the existential the compiler made. Nil for an image other than the one that holds the
    /// anchor (or before a walk of it met the record): the runtime's cast, which scans every conformance record of the
    /// process, checks those.
    static func compiledVerdict(in image: UnsafeRawPointer) -> Bool? {
        guard let anchor = anchorRecord, anchor.image == image else { return nil }
        RuntimeBinding.countCompilerCheck(.conformance)
        return anchorAgrees(conformance: anchor.conformance)
    }

    /// Whether `conformance`, read as the anchor's record, gives the witness table that the compiler put in an
    /// existential of the anchor, and an existential assembled with it holds the same parts.
    package static func anchorAgrees(conformance: UnsafeRawPointer) -> Bool {
        guard let shape = shape(of: (any AnchoredProtocol).self),
            let table = SwiftConformances.witnessTable(conformance, for: metadata(of: ConformanceAnchor.self))
        else { return false }
        var compiled: any AnchoredProtocol = ConformanceAnchor()
        let instance: Any = ConformanceAnchor()
        return withUnsafeTemporaryAllocation(byteCount: MemoryLayout<Any>.size + shape.size, alignment: 8) { buffer in
            let any = buffer.baseAddress!.initializeMemory(as: Any.self, to: instance)
            let existential = buffer.baseAddress! + MemoryLayout<Any>.size
            // The value moves out of `any` into the existential, which is compared and destroyed, never called.
            withUnsafePointer(to: shape) { bh_existential_make($0, any, table, existential) }
            var made = existential.assumingMemoryBound(to: (any AnchoredProtocol).self).move()
            return withUnsafePointer(to: &compiled) { a in
                withUnsafePointer(to: &made) { b in
                    sameParts(shape, metatype: false, UnsafeRawPointer(a), UnsafeRawPointer(b))
                }
            }
        }
    }
}
