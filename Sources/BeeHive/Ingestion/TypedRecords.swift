internal import _BeeHiveDiscovery

/// Converts an instance to a `TypedInstance<Service>` of the one service it was registered for, or nil when the
/// instance is of another type. Made where the compiler knows both types, so it needs no conformance look-up.
typealias ServiceBox = @Sendable (Any) -> AnyObject?

/// The services an implementation was annotated with, and the box that converts an instance to each.
struct ServiceBoxes {
    private(set) var services: [(service: any Any.Type, box: ServiceBox)] = []

    /// The annotated services, as types.
    var types: [any Any.Type] { services.map(\.service) }

    mutating func append(_ service: any Any.Type, _ box: @escaping ServiceBox) { services.append((service, box)) }

    /// The box that converts an instance to `service`, if the implementation was annotated with it.
    func box(for service: ObjectIdentifier) -> ServiceBox? {
        services.first { ObjectIdentifier($0.service) == service }?.box
    }
}

/// The types that the typed records of loaded images declare, by the name their JSON records give them: what lets
/// the first use of a macro-annotated service skip the look-up by name and the dynamic conformance checks.
///
/// Process-wide, like the types themselves. Filled by every hive that scans loaded images. Registration only keeps
/// the accessors (a scan registers services by their JSON records, as for C annotations); the first question calls
/// them all at once, so a program that never asks pays nothing more.
enum TypedRecords {
    /// A type a typed record declares: a module or route handler, or a service implementation with how to box its
    /// instances as each service it was annotated with.
    struct Declared {
        let type: any Any.Type
        let implementation: (any ServiceImplementation.Type)?
        /// The services the implementation was annotated with, and the boxes that convert to them.
        var services = ServiceBoxes()
        let imageID: UInt64
    }

    private struct Store {
        /// Accessors not called yet, with their image.
        var pending: [(accessor: _BeeHiveTypedRecord.Accessor, imageID: UInt64)] = []
        var declared: [String: Declared] = [:]
    }

    private static let store = LockedValue(Store())

    /// Keeps the accessors of the typed records of `section` (checked by the scanner: magic, layout version, an
    /// accessor inside the image's code) for the first question.
    static func add(_ section: RecordSection) {
        let size = 16
        var accessors: [(accessor: _BeeHiveTypedRecord.Accessor, imageID: UInt64)] = []
        accessors.reserveCapacity(section.bytes.count / size)
        var offset = 0
        while offset + size <= section.bytes.count {
            defer { offset += size }
            let address = section.bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt.self)
            guard section.bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self) == _BeeHiveTypedRecord.magic,
                let pointer = UnsafeRawPointer(bitPattern: address)
            else { continue }  // padding, or an entry the scanner reported and zeroed
            accessors.append((unsafeBitCast(pointer, to: _BeeHiveTypedRecord.Accessor.self), section.imageID))
        }
        guard !accessors.isEmpty else { return }
        store.withLock { $0.pending += accessors }
    }

    /// Forgets the records of an unloaded image: their accessors and closures are gone with it.
    static func remove(image imageID: UInt64) {
        store.withLock { store in
            store.pending.removeAll { $0.imageID == imageID }
            store.declared = store.declared.filter { $0.value.imageID != imageID }
        }
    }

    /// The type a typed record declares under `name`.
    static func type(named name: String) -> (any Any.Type)? {
        declared(named: name)?.type
    }

    /// The service implementation a typed record declares under `name`.
    static func implementation(named name: String) -> Declared? {
        guard let declared = declared(named: name), declared.implementation != nil else { return nil }
        return declared
    }

    /// The names of the implementations that typed records annotate with the service `service`.
    static func implementationNames(annotatedWith service: ObjectIdentifier) -> [String] {
        store.withLock { store in
            bind(&store)
            return store.declared.filter { $0.value.services.box(for: service) != nil }.map(\.key)
        }
    }

    private static func declared(named name: String) -> Declared? {
        store.withLock { store in
            bind(&store)
            return store.declared[name]
        }
    }

    /// Calls the pending accessors, all at once. They only build a value (the macros write them), so calling them
    /// under the lock runs no user code.
    private static func bind(_ store: inout Store) {
        guard !store.pending.isEmpty else { return }
        store.declared.reserveCapacity(store.declared.count + store.pending.count)
        let record = UnsafeMutablePointer<_BeeHiveTypedRecord>.allocate(capacity: 1)
        defer { record.deallocate() }
        for (accessor, imageID) in store.pending {
            accessor(UnsafeMutableRawPointer(record))
            let made = record.move()
            let name = String(made.name)
            switch made.payload {
            case .type(let type):
                store.declared[name] = Declared(type: type, implementation: nil, imageID: imageID)
            case .service(let service, let implementation, let box):
                store.declared[
                    name, default: Declared(type: implementation, implementation: implementation, imageID: imageID)
                ]
                .services.append(service, box)
            }
        }
        store.pending = []
    }
}

extension String {
    /// The text of a static string.
    fileprivate init(_ text: StaticString) {
        self = text.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }
}
