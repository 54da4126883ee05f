internal import _BeeHiveDiscovery

/// Converts an instance to a `TypedInstance<Service>` of the one service it was registered for, or nil when the
/// instance is of another type. Made where the compiler knows both types, so it needs no conformance look-up.
typealias ServiceBox = @Sendable (Any) -> AnyObject?

/// The types that the typed records of loaded images declare, by the name their JSON records give them: what lets
/// the first use of a macro-annotated service skip the look-up by name and the dynamic conformance checks.
///
/// Process-wide, like the types themselves. Filled by every hive that scans loaded images.
enum TypedRecords {
    /// A service implementation and how to box its instances as each service it was annotated with.
    struct Implementation {
        let type: any ServiceImplementation.Type
        var boxes: [ObjectIdentifier: ServiceBox]
        /// The services it was annotated with, as types.
        var services: [any Any.Type] = []
        let imageID: UInt64
    }

    private struct Store {
        var types: [String: (type: any Any.Type, imageID: UInt64)] = [:]
        var implementations: [String: Implementation] = [:]
    }

    private static let store = LockedValue(Store())

    /// Calls the accessor of every typed record of `section` (checked by the scanner: magic, layout version, an
    /// accessor inside the image's code) and keeps what they make.
    static func add(_ section: RecordSection) {
        let size = 16
        var made: [_BeeHiveTypedRecord] = []
        made.reserveCapacity(section.bytes.count / size)
        var offset = 0
        while offset + size <= section.bytes.count {
            defer { offset += size }
            let address = section.bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt.self)
            guard section.bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self) == _BeeHiveTypedRecord.magic,
                let pointer = UnsafeRawPointer(bitPattern: address)
            else { continue }  // padding, or an entry the scanner reported and zeroed
            let accessor = unsafeBitCast(pointer, to: _BeeHiveTypedRecord.Accessor.self)
            let storage = UnsafeMutablePointer<_BeeHiveTypedRecord>.allocate(capacity: 1)
            accessor(UnsafeMutableRawPointer(storage))
            made.append(storage.move())
            storage.deallocate()
        }
        guard !made.isEmpty else { return }
        store.withLock { store in
            for record in made {
                let name = String(record.name)
                switch record.payload {
                case .type(let type):
                    store.types[name] = (type, section.imageID)
                case .service(let service, let implementation, let box):
                    store.types[name] = (implementation, section.imageID)
                    store.implementations[
                        name, default: Implementation(type: implementation, boxes: [:], imageID: section.imageID)
                    ]
                    .add(service, box)
                }
            }
        }
    }

    /// Forgets the records of an unloaded image: their accessors and closures are gone with it.
    static func remove(image imageID: UInt64) {
        store.withLock { store in
            store.types = store.types.filter { $0.value.imageID != imageID }
            store.implementations = store.implementations.filter { $0.value.imageID != imageID }
        }
    }

    /// The type a typed record declares under `name`.
    static func type(named name: String) -> (any Any.Type)? {
        store.withLock { $0.types[name]?.type }
    }

    /// The names of the implementations that typed records annotate with the service `service`.
    static func implementationNames(annotatedWith service: ObjectIdentifier) -> [String] {
        store.withLock { $0.implementations.filter { $0.value.boxes[service] != nil }.map(\.key) }
    }

    /// The service implementation a typed record declares under `name`.
    static func implementation(named name: String) -> Implementation? {
        store.withLock { $0.implementations[name] }
    }
}

extension TypedRecords.Implementation {
    fileprivate mutating func add(_ service: any Any.Type, _ box: @escaping ServiceBox) {
        if boxes.updateValue(box, forKey: ObjectIdentifier(service)) == nil { services.append(service) }
    }
}

extension String {
    /// The text of a static string.
    fileprivate init(_ text: StaticString) {
        self = text.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }
}
