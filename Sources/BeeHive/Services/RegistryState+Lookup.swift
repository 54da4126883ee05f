#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension RegistrationKey {
    var displayName: String { name.map { "\(service)[\($0)]" } ?? service }
}

extension ServiceEntry {
    /// The cached instance; read under the hive's lock.
    var cachedInstance: Any? {
        if case .ready(let instance) = slot { return instance }
        return nil
    }
}

extension RegistryState {
    /// For a request that found no registration: the closest registered names, a Swift annotation that named the
    /// service through a typealias, the images that carry records, and a hint at an annotation target that was not
    /// linked when no registration names a type of the service's module.
    func missingHints(for key: RegistrationKey, type: ObjectIdentifier?) -> String {
        var hints = withdrawn[key].map { " \($0)." } ?? ""
        hints += ClosestNames.hint(
            ClosestNames.closestServices(to: key.service, among: Set(services.keys.map(\.service))))
        let registrations = services.values.map(\.registration)
        // A Swift annotation that named the service through a typealias: its record carries the alias's name, its
        // typed record the service's type, found by the type asked for or, asked by name, by that type's name.
        var annotated = Set(type.map(TypedRecords.implementationNames(annotatedWith:)) ?? [])
        for entry in services.values
        where type == nil && entry.registration.service != key.service
            && DiagnosticHints.isSwiftAnnotation(entry.registration)
        {
            guard case .implementation(_, let boxes) = entry.provider,
                entry.annotated.map(ServiceBoxes.name(of:)) == key.service || boxes.names.contains(key.service)
            else { continue }
            annotated.insert(entry.registration.implementation)
        }
        for implementation in annotated.sorted() {
            for registration in registrations
            where registration.implementation == implementation && registration.service != key.service
                && DiagnosticHints.isSwiftAnnotation(registration)
            {
                hints +=
                    " \(implementation) is annotated with this service, but its record names it \(registration.service) "
                    + "(\(registration.source)): a typealias gives the alias's name; name the protocol itself."
            }
        }
        let images = Set(registrations.compactMap { $0.source.sectionName == nil ? nil : $0.source.imagePath })
        hints += " Images with records: \(images.isEmpty ? "none" : images.sorted().joined(separator: ", "))."
        let module = key.service.prefix { $0 != "." } + "."
        if !registrations.contains(where: { $0.service.hasPrefix(module) || $0.implementation.hasPrefix(module) }) {
            hints +=
                " No registration names a type of module \(module.dropLast()): if its services are annotated "
                + "(BH_SERVICE in a C target, or @BeeHiveService), check that the target is linked into this "
                + "program; a target of records that no code refers to is left out by the linker (see BH_ANCHOR "
                + "in Docs/Linking.md, \"Records that nothing refers to\")."
        }
        return hints
    }

    /// The entry serving a request: `fixed` when given, else the one indexed under `typeKey`, else the one registered
    /// under `key`, which is then indexed under `typeKey` for the next request.
    ///
    /// No closures over the state: each would copy the tables it reads (their arrays' retains and releases).
    @inline(__always)
    mutating func entry(serving key: RegistrationKey, typeKey: TypeKey?, fixed: ServiceEntry?) -> ServiceEntry? {
        if let fixed { return fixed }
        if let typeKey, let indexed = typeIndex[typeKey] { return indexed }
        guard let entry = entry(for: key) else { return nil }
        if let typeKey { typeIndex.set(entry, for: typeKey, expected: services.count) }
        return entry
    }

    /// What a request that found no registration is told: the first registered services, the registration of its
    /// service without its module, and the hints (``missingHints(for:type:)``).
    struct Miss {
        let available: [String]
        let unqualified: ServiceRegistration?
        let hints: String
    }

    /// What the request for `key` (of the service type `type`, when known) is told when nothing serves it.
    func miss(for key: RegistrationKey, type: ObjectIdentifier?) -> Miss {
        Miss(
            available: serviceOrder.prefix(20).map(\.registration.displayName),
            unqualified: unqualifiedEntry(for: key)?.registration,
            hints: missingHints(for: key, type: type))
    }

    /// The entry for `key`. Names match exactly: a request for `App.Tracker` is not served by a registration
    /// of `Tracker`, which could be another module's service (``unqualifiedEntry(for:)`` finds it for the error).
    func entry(for key: RegistrationKey) -> ServiceEntry? { services[key] }

    /// The registration of `key`'s service without its module (`Tracker` for `App.Tracker`), as BeeHive's
    /// Objective-C files name protocols: named in the error when `key` is not found.
    func unqualifiedEntry(for key: RegistrationKey) -> ServiceEntry? {
        guard let dot = key.service.firstIndex(of: ".") else { return nil }
        return services[RegistrationKey(service: String(key.service[key.service.index(after: dot)...]), name: key.name)]
    }
}

extension KeyedTable where Key == RegistrationKey {
    /// The unnamed registration of the service whose name is the UTF-8 `bytes`, with its key, if there is one: found
    /// without a string made of the name; the key holds the registry's own strings, which the next look-ups by the key
    /// compare at once. (On the table, not the registry's state: a method of the state copies it.)
    func unnamedEntry(serviceUTF8 bytes: UnsafeBufferPointer<UInt8>) -> (key: RegistrationKey, value: Value)? {
        entry(hash: String.tableHash(of: bytes)) { key in
            key.name == nil
                && key.service.utf8.withContiguousStorageIfAvailable {
                    $0.count == bytes.count && memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0
                } == true
        }
    }
}
