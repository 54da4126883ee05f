@_spi(Testing) internal import _BeeHiveDiscovery
internal import _BeeHiveRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The types that the typed records of loaded images declare, by the name their JSON records give them: what lets
/// the first use of a macro-annotated service skip the look-up by name and the dynamic conformance checks.
///
/// Process-wide, like the types themselves. Filled by every hive that scans loaded images. Swift records (format 3)
/// are called at registration, which binds their services and indexes them by type (``SwiftRecords``): their typed
/// records are only kept here, and indexed by name when a question by name comes (``keep(_:imageID:)``). Typed
/// records of format 2 keep only their accessors at registration; the first question calls them all at once, so a
/// program that never asks pays nothing more.
///
/// Accessors are foreign code: the scanner calls nothing that does not lie in its image's executable segments,
/// and ``bindPending()`` calls them outside every lock, with a guard (this copy's record type and a fresh stamp),
/// into zeroed memory that it reads as a record only once the stamp shows this library wrote it. An accessor that
/// answers "not mine", writes nothing or writes something else is a diagnostic of the hive that scanned its image,
/// naming the image and the record; its JSON record still registers by name.
enum TypedRecords {
    /// A type a typed record declares: a module or route handler, or a service implementation with how to box its
    /// instances as each service it was annotated with.
    struct Declared {
        let type: any Any.Type
        let implementation: (any ServiceImplementation.Type)?
        /// The services the implementation was annotated with, and how to make an instance boxed as each.
        var services = ServiceBoxes.none
        let imageID: UInt64
    }

    /// What a typed record says of the service it was written for: the service's module-qualified name (what its
    /// registrations are keyed by), and its implementation's name with the implementation as published with this
    /// record. Found by the service's type, so that the first use of a macro-annotated service hashes no name. A
    /// class: a table's slot of this size cost more to copy than the look-up by name it saves.
    final class TypedService {
        let serviceName: String
        let implementationName: String
        /// The implementation as published with this record: its services include this one (services published later
        /// for the same implementation are in the store's table by name, `Store.declared`).
        let declared: Declared

        init(serviceName: String, implementationName: String, declared: Declared) {
            self.serviceName = serviceName
            self.implementationName = implementationName
            self.declared = declared
        }
    }

    struct Store {
        /// The sections whose accessors were not called yet, oldest first.
        var pending: PendingSection?
        var lastPending: PendingSection?
        var declared = KeyedTable<String, Declared>()
        /// The services that typed records annotate, by type.
        var services = AddressTable<TypedService>()
        /// Whether a thread is calling accessors; others wait for it (on `bound`) instead of calling them again.
        var binding = false
        /// The thread calling accessors: an accessor that asks BeeHive about types gets no answer from typed
        /// records instead of waiting for itself.
        var binder: pthread_t?
        /// Images unloaded while accessors were being called: their records are not published.
        var removedWhileBinding: Set<UInt64> = []
        /// Records that Swift records' accessors made when their hive registered them, not indexed by name yet: a
        /// question by name indexes them (``indexKept()``); a first use by type never asks.
        /// In a list, newest first (an array of them would make the runtime build its type at the first one).
        var kept: MadeRecords?

        /// Publishes the kept records, oldest first.
        mutating func indexKept() {
            guard var batch = kept else { return }
            kept = nil
            var batches = [batch]
            while let next = batch.next {
                batches.append(next)
                batch = next
            }
            for batch in batches.reversed() {
                batch.next = nil
                batch.forEach { record, imageID in TypedRecords.publish(record, imageID: imageID, in: &self) }
            }
        }

        /// Unlinks the kept records of the image `imageID`.
        mutating func removeKept(image imageID: UInt64) {
            kept = TypedRecords.unlink(kept) { $0.imageID == imageID }.first
        }

        /// Unlinks the pending sections that `shouldRemove` picks.
        mutating func removePending(where shouldRemove: (PendingSection) -> Bool) {
            (pending, lastPending) = TypedRecords.unlink(pending, where: shouldRemove)
        }
    }

    static let store = LockedValue(Store())
    /// Whether accessors wait to be called or are being called: what lets ``bindPending()`` cost one atomic load once
    /// everything is bound.
    static let unbound = PublishedFlag()
    /// Signalled when a thread has published what its accessors made.
    static let bound = BindSignal()
    /// Whether any typed record was ever kept or bound: a program without Swift annotations (C records, files,
    /// explicit code) answers the questions by name with one atomic load, not the lock (~0.1 K instructions each,
    /// three per first use of a name-bound service). Never cleared: an image's records removed leave the slow path.
    static let hasRecords = PublishedFlag()

    /// Keeps the accessors of the typed records of `section` (checked by the scanner: magic, layout version, an
    /// accessor inside the image's code) for the first question. `reporter` gets the diagnostics of the records
    /// that fail when they are called.
    static func add(_ section: RecordSection, reporter: Hive? = nil) {
        guard let pending = PendingSection(section, reporter: reporter) else { return }
        store.withLock { store in
            if let last = store.lastPending { last.next = pending } else { store.pending = pending }
            store.lastPending = pending
            unbound.set(true)
        }
    }

    /// Keeps the typed records that Swift records' accessors of the image `imageID` made at registration, for the
    /// questions by name (a module's or handler's type, an implementation that a C record or a file names).
    static func keep(_ made: MadeRecords, imageID: UInt64) {
        guard made.count > 0 else { return }
        store.withLock { store in
            made.next = store.kept
            store.kept = made
            hasRecords.set(true)
        }
    }

    /// Forgets the records of an unloaded image: their accessors and closures are gone with it.
    static func remove(image imageID: UInt64) {
        store.withLock { store in
            store.removeKept(image: imageID)
            store.removePending { $0.imageID == imageID }
            store.declared.removeAll { $0.imageID == imageID }
            store.services.removeAll { $0.declared.imageID == imageID }
            if store.binding { store.removedWhileBinding.insert(imageID) }
        }
    }

    /// The type a typed record declares under `name`.
    static func type(named name: String) -> (any Any.Type)? {
        bindPending()
        guard hasRecords.isSet else { return nil }
        return store.withLock { store in
            store.indexKept()
            return store.declared[name]?.type
        }
    }

    /// The service implementation a typed record declares under `name`. `service`, the service it is asked for as,
    /// finds it without hashing the name when a typed record of that service names it.
    static func implementation(named name: String, service: ObjectIdentifier? = nil) -> Declared? {
        bindPending()
        guard hasRecords.isSet else { return nil }
        return store.withLock { store in
            store.indexKept()
            if let service, let typed = store.services[service], typed.implementationName == name {
                return typed.declared
            }
            guard let declared = store.declared[name], declared.implementation != nil else { return nil }
            return declared
        }
    }

    /// The module-qualified name of the service `service`, as the records of an annotation with it write it: what
    /// its registrations are keyed by, known without asking the runtime to name the type.
    static func serviceName(of service: ObjectIdentifier) -> String? {
        bindPending()
        guard hasRecords.isSet else { return nil }
        return store.withLock { store in
            store.indexKept()
            return store.services[service]?.serviceName
        }
    }

    /// The names of the implementations that typed records annotate with the service `service`. Calls no
    /// accessor (it may run under a hive's lock): only records bound by an earlier ``bindPending()`` count.
    static func implementationNames(annotatedWith service: ObjectIdentifier) -> [String] {
        store.withLock { store in
            store.indexKept()
            return store.declared.entries.filter { $0.value.services.maker(for: service) != nil }.map(\.key)
        }
    }

    static func publish(_ made: borrowing _BeeHiveTypedRecord, imageID: UInt64, in store: inout Store) {
        func publish(
            _ service: any Any.Type, named serviceName: String, key: (any ServiceKey.Type)?,
            _ implementation: any ServiceImplementation.Type, _ make: @escaping ServiceMaker
        ) {
            var published: Declared?
            store.declared.modify(
                made.name, initial: Declared(type: implementation, implementation: implementation, imageID: imageID)
            ) {
                $0.services = $0.services.adding(service, key: key, make)
                published = $0
            }
            guard let published else { return }
            store.services[ObjectIdentifier(service)] = TypedService(
                serviceName: serviceName, implementationName: made.name, declared: published)
        }
        switch made.payload {
        case .type(let type):
            store.declared[made.name] = Declared(type: type, implementation: nil, imageID: imageID)
        case .service(let service, let serviceName, let implementation, let make, _):
            publish(service, named: serviceName, key: nil, implementation, make)
        case .keyedService(let key, let implementation, let make, _):
            publish(key, named: key.serviceName, key: key, implementation, make)
        }
    }
}
