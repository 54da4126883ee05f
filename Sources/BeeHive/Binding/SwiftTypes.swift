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
        var mangledName: String? { SwiftTypes.mangledName(of: descriptor) }

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

    /// The name of the type or protocol `descriptor` as the runtime's look-up by mangled name takes it
    /// (`6Module5OuterV5InnerC`); nil when it cannot be spelt so simply (identifiers that need Punycode).
    static func mangledName(of descriptor: UnsafeRawPointer) -> String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1_024) { buffer in
            let length = bh_swift_mangled_name(descriptor, buffer.baseAddress, buffer.count)
            return length > 0 ? String(cString: buffer.baseAddress!) : nil
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
        Index.make(inModule: module, near: near).map { Walk(entries: $0.all, problems: $1) }
    }
}

extension SwiftTypes.Entry {
    /// The entry an index holds, named `name` when the caller has the name already (no string made).
    init?(_ type: bh_swift_type, named name: String? = nil) {
        guard let kind = SwiftTypes.Kind(type.kind) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: type.name, count: type.name_length)
        self.init(
            name: name ?? String(decoding: bytes, as: UTF8.self), kind: kind, isGeneric: type.is_generic != 0,
            image: type.image, descriptor: type.descriptor)
    }
}

extension SwiftTypes {
    /// The named types and protocols of one module (or of every module) in the loaded images, indexed by name in the
    /// C target (`bh_type_index`): a look-up by name makes no string of the types it passes over, and indexing a type
    /// costs no allocation (a Swift string and a table entry per type cost twice the walk). Immutable once shared.
    final class Index: @unchecked Sendable {
        /// The C target's index: read here, and by a walk of conformances told the module's types by it.
        fileprivate let index: OpaquePointer

        /// The index of `module`'s types (every module's when nil) in the loaded images (only in the one that holds
        /// `near`, when given), with the images that could not be read; nil when the Swift runtime cannot enumerate
        /// its images, no loaded image holds `near`, or memory ran out.
        static func make(inModule module: String?, near: UnsafeRawPointer? = nil) -> (Index, [RuntimeImage.Problem])? {
            let collector = RuntimeImage.Collector()
            let index = withExtendedLifetime(collector) {
                let context = Unmanaged.passUnretained(collector).toOpaque()
                guard let module else { return bh_swift_type_index(nil, near, RuntimeImage.collect, context) }
                return module.withCString { bh_swift_type_index($0, near, RuntimeImage.collect, context) }
            }
            return index.map { (Index($0), collector.problems) }
        }

        private init(_ index: OpaquePointer) { self.index = index }

        deinit { bh_type_index_free(index) }

        /// Leaves the entries of the image whose lowest address is `image` out of every later answer; only before the
        /// index is shared.
        func drop(image: UInt) { bh_type_index_drop_image(index, UnsafeRawPointer(bitPattern: image)) }

        /// Whether the index holds the class, struct or enum whose context descriptor is `descriptor`.
        func holdsType(_ descriptor: UnsafeRawPointer) -> Bool { bh_type_index_holds_type(index, descriptor) != 0 }

        /// Every entry not dropped, in the walk's order.
        var all: [Entry] {
            var entries: [Entry] = []
            var type = bh_swift_type()
            var position = 0
            while case let found = bh_type_index_entry(index, position, &type), found >= 0 {
                if found == 1, let entry = Entry(type) { entries.append(entry) }
                position += 1
            }
            return entries
        }

        /// The entries named `name`, in the walk's order.
        func entries(named name: String) -> [Entry] {
            positions(named: name).compactMap { entry(at: $0, named: name) }
        }

        /// What `body` makes of the UTF-8 bytes of the name of the existential `type`'s one protocol (`any P`), when
        /// the index holds that protocol; valid during the call (the index's own memory).
        func withExistentialName<Result>(
            of type: any Any.Type, _ body: (UnsafeBufferPointer<UInt8>) -> Result?
        ) -> Result? {
            var name: UnsafePointer<CChar>?
            let length = bh_type_index_existential_name(index, unsafeBitCast(type, to: UnsafeRawPointer.self), &name)
            guard length > 0, let name else { return nil }
            return UnsafeRawPointer(name).withMemoryRebound(to: UInt8.self, capacity: length) {
                body(UnsafeBufferPointer(start: $0, count: length))
            }
        }

        /// What `body` makes of the one entry named `name`, when there is exactly one (no array made).
        func withOnlyEntry<Result>(named name: String, _ body: (Entry) -> Result?) -> Result? {
            var position = 0
            let count = withUTF8(of: name) { bh_type_index_find(index, $0.baseAddress, $0.count, &position, 1) }
            guard count == 1 else { return nil }
            // No `Entry?` is made: an optional one was destroyed through its metadata, made from its mangled name at
            // the first binding (~9 K instructions once per process).
            var type = bh_swift_type()
            _ = bh_type_index_entry(index, position, &type)
            guard let kind = Kind(type.kind) else { return nil }
            return body(
                Entry(
                    name: name, kind: kind, isGeneric: type.is_generic != 0, image: type.image,
                    descriptor: type.descriptor))
        }

        private func positions(named name: String) -> [Int] {
            withUTF8(of: name) { name in
                let count = bh_type_index_find(index, name.baseAddress, name.count, nil, 0)
                // None: the empty array as it is. `Array(unsafeUninitializedCapacity: 0)` writes its count into the
                // process-wide empty array's storage, a race between threads that ThreadSanitizer reports.
                guard count > 0 else { return [] }
                return [Int](unsafeUninitializedCapacity: count) { positions, initialized in
                    initialized = bh_type_index_find(index, name.baseAddress, name.count, positions.baseAddress, count)
                }
            }
        }

        private func entry(at position: Int, named name: String) -> Entry? {
            var type = bh_swift_type()
            _ = bh_type_index_entry(index, position, &type)
            return Entry(type, named: name)
        }

        private func withUTF8<R>(of name: String, _ body: (UnsafeBufferPointer<CChar>) -> R) -> R {
            name.withUTF8Bytes { bytes in bytes.withMemoryRebound(to: CChar.self) { body($0) } }
        }
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

    /// The unconditional conformances of the non-generic types of one module in one image, by type and protocol: kept
    /// in C, where keeping a record costs no allocation or hashing of its own. Immutable.
    final class Table: @unchecked Sendable {
        private let table: OpaquePointer
        /// What the walk found wrong with the image (none when it was read whole).
        let problems: [RuntimeImage.Problem]

        init(_ table: OpaquePointer, problems: [RuntimeImage.Problem]) {
            self.table = table
            self.problems = problems
        }

        deinit { bh_conformance_table_free(table) }

        /// The record of the conformance of the type `type` (its descriptor) to the protocol `protocol` (its
        /// descriptor), if the module declares it.
        func record(type: UnsafeRawPointer, protocol: UnsafeRawPointer) -> Record? {
            guard let found = bh_conformance_table_find(table, type, `protocol`)?.pointee,
                let conformance = found.conformance, let image = found.image
            else { return nil }
            return Record(type: type, protocol: `protocol`, conformance: conformance, image: image)
        }

        /// The record of the conformance to the protocol the walk named of the type named `name` (module-qualified,
        /// its UTF-8 bytes), if the module declares one.
        func record(named name: UnsafeBufferPointer<UInt8>) -> Record? {
            let found = name.withMemoryRebound(to: CChar.self) {
                bh_conformance_table_find_named(table, $0.baseAddress, $0.count)
            }
            guard let found = found?.pointee, let type = found.type, let proto = found.protocol,
                let conformance = found.conformance, let image = found.image
            else { return nil }
            return Record(type: type, protocol: proto, conformance: conformance, image: image)
        }
    }

    /// Every unconditional conformance of a non-generic type of `module` declared in `image` (the image's lowest
    /// address), in a table with the problems found if the image could not be read whole; nil when the Swift runtime
    /// cannot enumerate its images (or memory ran out). When `anchor` names a conformance (its type's and protocol's
    /// descriptors) of any module, its record is looked for too (a test of one pointer per record), and `met` set
    /// when the walk met it.
    ///
    /// `members`, an index of the module's types that covers `image`, tells a record's type is the module's by its
    /// descriptor's address, where its chain of parents would be read and its module's name compared. The conformers
    /// of `naming` (a protocol descriptor) are kept by their names too (``Table/record(named:)``).
    static func table(
        ofModule module: String, in image: UnsafeRawPointer,
        meeting anchor: (type: UnsafeRawPointer, protocol: UnsafeRawPointer)?, met: inout Record?,
        members: SwiftTypes.Index? = nil, naming: UnsafeRawPointer? = nil
    ) -> Table? {
        let collector = RuntimeImage.Collector()
        var sought = bh_swift_conformance(type: anchor?.type, protocol: anchor?.protocol, conformance: nil, image: nil)
        let made = withExtendedLifetime(collector) {
            module.withCString { name in
                withExtendedLifetime(members) {
                    bh_swift_conformance_table(
                        name, image, &sought, members?.index, naming, RuntimeImage.collect,
                        Unmanaged.passUnretained(collector).toOpaque())
                }
            }
        }
        guard let made else { return nil }
        if let anchor, let conformance = sought.conformance, let image = sought.image {
            met = Record(type: anchor.type, protocol: anchor.protocol, conformance: conformance, image: image)
        }
        return Table(made, problems: collector.problems)
    }

    /// The context descriptor of a class, struct or enum type.
    static func typeDescriptor(of metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
        bh_swift_type_descriptor(metadata)
    }

    /// The module that declares the type `descriptor` (its context descriptor), and the image that holds the type (its
    /// lowest address). Its name is not read.
    static func module(of descriptor: UnsafeRawPointer) -> (module: UnsafeRawPointer, image: UnsafeRawPointer)? {
        var image: UnsafeRawPointer?
        guard let module = bh_swift_module(descriptor, &image, nil), let image else { return nil }
        return (module, image)
    }

    /// The name of the module that declares the type `descriptor`.
    static func moduleName(of descriptor: UnsafeRawPointer) -> String? {
        var name: UnsafePointer<CChar>?
        guard bh_swift_module(descriptor, nil, &name) != nil, let name else { return nil }
        return String(cString: name)
    }

    /// The witness table of the type `metadata` for `conformance`.
    static func witnessTable(_ conformance: UnsafeRawPointer, for metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
        bh_swift_witness_table(conformance, metadata)
    }
}
