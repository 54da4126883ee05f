@_spi(Testing) internal import _BeeHiveDiscovery
internal import _BeeHiveRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Makes an instance of an implementation (its shared one when asked) and boxes it as the one service its typed record
/// was written for. Made where the compiler knows both types, so it needs no cast and no conformance look-up.
@usableFromInline
typealias ServiceMaker = @Sendable (_ shared: Bool) -> (instance: Any, boxed: TypedInstance)

/// The services an implementation was annotated with, and for each how to make an instance boxed as that service.
///
/// Immutable and shared: a provider or a declared type holding it is copied with one retain. The first service is
/// held inline: most implementations serve one service, and then no array is made. Sendable because nothing in it
/// changes: types and `@Sendable` closures, all `let`.
final class ServiceBoxes: @unchecked Sendable {
    /// Holds no service: for implementations no typed record describes.
    static let none = ServiceBoxes(first: nil, others: [])

    private let first: (service: any Any.Type, make: ServiceMaker)?
    private let others: [(service: any Any.Type, make: ServiceMaker)]

    private init(
        first: (service: any Any.Type, make: ServiceMaker)?, others: [(service: any Any.Type, make: ServiceMaker)]
    ) {
        self.first = first
        self.others = others
    }

    /// The annotated services, as types.
    var types: [any Any.Type] { (first.map { [$0.service] } ?? []) + others.map(\.service) }

    /// These services and `service`, made by `make`.
    func adding(_ service: any Any.Type, _ make: @escaping ServiceMaker) -> ServiceBoxes {
        guard let first else { return ServiceBoxes(first: (service, make), others: []) }
        return ServiceBoxes(first: first, others: others + [(service, make)])
    }

    /// How to make an instance boxed as `service`, if the implementation was annotated with it.
    func maker(for service: ObjectIdentifier) -> ServiceMaker? {
        if let first, ObjectIdentifier(first.service) == service { return first.make }
        return others.first { ObjectIdentifier($0.service) == service }?.make
    }

    /// How to make an instance, whatever it is then used as; nil when no typed record says how.
    var anyMaker: ServiceMaker? { first?.make }
}

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

    /// The typed records of one section whose accessors were not called yet: where they lie, the hive to tell when
    /// one fails, and each record's offset and accessor.
    ///
    /// The offsets and accessors are copied out of the section into memory of its own (the section's bytes may be a
    /// buffer its reader frees), as pairs of words: a Swift array of them would make the runtime instantiate its
    /// storage type at registration. Sections wait in a list for the same reason.
    final class PendingSection: ListNode {
        let imageID: UInt64
        let imagePath: String
        let section: String
        let sectionFileOffset: UInt64
        weak var reporter: Hive?
        /// The base address of the image that holds the accessors, and the loader's count of unloaded images when
        /// the records were added: once that count moves, the image must still be the one mapped there.
        let imageBase: UInt
        let unloads: UInt64
        /// The next section in the list of pending ones.
        var next: PendingSection?
        /// Pairs of words: a record's offset in the section, then its accessor's address.
        private let words: UnsafeMutableBufferPointer<UInt>

        /// The accessors of `section`'s well-formed entries (checked by the scanner: magic, layout version, an
        /// accessor inside the image's code); nil when it has none.
        init?(_ section: RecordSection, reporter: Hive?) {
            // Typed records of format 2 (magic, layout version, accessor), or Swift records of format 3 (kind,
            // version, accessor, record kind, reserved).
            let isSwift = section.kind == .swiftRecords
            let size = isSwift ? RecordFormat.swiftRecordSize : RecordFormat.typedRecordSize
            let (magic, version) =
                isSwift
                ? (RecordFormat.swiftRecordKind, RecordFormat.swiftRecordVersion)
                : (_BeeHiveTypedRecord.magic, _BeeHiveTypedRecord.layoutVersion)
            let accessorOffset =
                isSwift ? RecordFormat.swiftRecordAccessorOffset : RecordFormat.typedRecordAccessorOffset
            let bytes = section.bytes
            let words = UnsafeMutableBufferPointer<UInt>.allocate(capacity: 2 * (bytes.count / size))
            var count = 0
            var offset = 0
            while offset + size <= bytes.count {
                defer { offset += size }
                let address = bytes.loadUnaligned(fromByteOffset: offset + accessorOffset, as: UInt.self)
                guard bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self) == magic,
                    bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) == version,
                    address != 0,
                    !isSwift
                        || bytes.loadUnaligned(
                            fromByteOffset: offset + RecordFormat.swiftRecordKindOffset, as: UInt.self)
                            != RecordFormat.swiftRecordKindAPI
                else { continue }  // padding, an entry the scanner reported and zeroed, or an API record (no type)
                words[2 * count] = UInt(offset)
                words[2 * count + 1] = address
                count += 1
            }
            guard count > 0 else {
                words.deallocate()
                return nil
            }
            self.words = UnsafeMutableBufferPointer(rebasing: words[..<(2 * count)])
            imageID = section.imageID
            imagePath = section.imagePath
            self.section = section.sectionName
            sectionFileOffset = section.fileOffset
            self.reporter = reporter
            // The scanner checked that every accessor lies in this image's code: one look-up gives the image.
            imageBase = ImageScanner.imageBase(of: UnsafeRawPointer(bitPattern: words[1])!)
            unloads = ImageScanner.unloadedImageCount
        }

        deinit { words.deallocate() }

        /// Whether the image that held the accessors is still mapped where it was: no image was unloaded since they
        /// were added, or the image at the first accessor's address is still the one that was there.
        var isMapped: Bool {
            unloads == ImageScanner.unloadedImageCount
                || ImageScanner.imageBase(of: UnsafeRawPointer(bitPattern: words[1])!) == imageBase
        }

        /// How many well-formed entries the section holds.
        var count: Int { words.count / 2 }

        /// Calls `body` with each record's offset and accessor, in the section's order.
        func forEach(_ body: (_ offset: Int, _ accessor: _BeeHiveTypedRecord.Accessor) -> Void) {
            for pair in stride(from: 0, to: words.count, by: 2) {
                body(Int(words[pair]), unsafeBitCast(words[pair + 1], to: _BeeHiveTypedRecord.Accessor.self))
            }
        }
    }

    /// What a typed record says of the service it was written for: the service's module-qualified name (what its
    /// registrations are keyed by), and its implementation's name with the implementation as published with this
    /// record. Found by the service's type, so that the first use of a macro-annotated service hashes no name. A
    /// class: a table's slot of this size cost more to copy than the look-up by name it saves.
    private final class TypedService {
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

    private struct Store {
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

    /// A node of a list linked by `next` (pending sections, kept records).
    fileprivate protocol ListNode: AnyObject {
        var next: Self? { get set }
    }

    /// Unlinks the nodes of the list at `head` that `shouldRemove` picks, keeping the others in order; returns the
    /// list's first and last node.
    private static func unlink<Node: ListNode>(
        _ head: Node?, where shouldRemove: (Node) -> Bool
    ) -> (first: Node?, last: Node?) {
        var first: Node?
        var last: Node?
        var node = head
        while let current = node {
            node = current.next
            current.next = nil
            guard !shouldRemove(current) else { continue }
            if let last { last.next = current } else { first = current }
            last = current
        }
        return (first, last)
    }

    private static let store = LockedValue(Store())
    /// Whether accessors wait to be called or are being called (`BH_FLAG_TYPED_RECORDS_UNBOUND`, an atomic flag in
    /// C): what lets ``bindPending()`` cost one atomic load once everything is bound.
    private static var unbound: Bool {
        get { bh_flag(BH_FLAG_TYPED_RECORDS_UNBOUND) != 0 }
        set { bh_set_flag(BH_FLAG_TYPED_RECORDS_UNBOUND, newValue ? 1 : 0) }
    }
    /// Signalled when a thread has published what its accessors made.
    private static let bound = BindSignal()

    /// Keeps the accessors of the typed records of `section` (checked by the scanner: magic, layout version, an
    /// accessor inside the image's code) for the first question. `reporter` gets the diagnostics of the records
    /// that fail when they are called.
    static func add(_ section: RecordSection, reporter: Hive? = nil) {
        guard let pending = PendingSection(section, reporter: reporter) else { return }
        store.withLock { store in
            if let last = store.lastPending { last.next = pending } else { store.pending = pending }
            store.lastPending = pending
            unbound = true
        }
    }

    /// Keeps the typed records that Swift records' accessors of the image `imageID` made at registration, for the
    /// questions by name (a module's or handler's type, an implementation that a C record or a file names).
    static func keep(_ made: MadeRecords, imageID: UInt64) {
        guard made.count > 0 else { return }
        store.withLock { store in
            made.next = store.kept
            store.kept = made
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
        return store.withLock { store in
            store.indexKept()
            return store.declared[name]?.type
        }
    }

    /// The service implementation a typed record declares under `name`. `service`, the service it is asked for as,
    /// finds it without hashing the name when a typed record of that service names it.
    static func implementation(named name: String, service: ObjectIdentifier? = nil) -> Declared? {
        bindPending()
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

    /// Calls the pending accessors, all at once, outside every lock, and publishes what they made; a thread that
    /// finds another one calling them waits until it has published. Call with no lock held.
    static func bindPending() {
        guard unbound else { return }
        while true {
            enum Step { case done, wait, bind(PendingSection) }
            let step: Step = store.withLock { store in
                if store.binding {
                    return store.binder.map { pthread_equal($0, pthread_self()) != 0 } == true ? .done : .wait
                }
                guard let pending = store.pending else { return .done }
                store.binding = true
                store.binder = pthread_self()
                store.pending = nil
                store.lastPending = nil
                return .bind(pending)
            }
            switch step {
            case .done: return
            case .wait: bound.wait { store.withLock { !$0.binding } }
            case .bind(let pending):
                let sections = sequence(first: pending, next: { $0.next })
                let made = MadeRecords(capacity: sections.reduce(0) { $0 + $1.count })
                var failures: [(PendingSection, offset: Int, String)] = []
                let buffer = UnsafeMutableRawPointer.allocate(
                    byteCount: MemoryLayout<_BeeHiveTypedRecord>.size,
                    alignment: MemoryLayout<_BeeHiveTypedRecord>.alignment)
                defer { buffer.deallocate() }
                let stamp = UInt64.random(in: 1...UInt64.max)  // one per binding: the buffer is zeroed before each call
                // An image unloaded since its records were added, by a hive that has not rescanned since, is not
                // called into: its records are dropped (that hive's rescan withdraws its registrations).
                for section in sections where section.isMapped {
                    section.forEach { offset, accessor in
                        switch call(accessor, stamp: stamp, into: buffer) {
                        case .success(let value): made.append(value, imageID: section.imageID)
                        case .failure(let reason): failures.append((section, offset, reason))
                        }
                    }
                }
                store.withLock { store in
                    store.declared.reserveCapacity(made.count)
                    store.services.reserveCapacity(made.count)
                    made.forEach { record, imageID in
                        guard !store.removedWhileBinding.contains(imageID) else { return }
                        publish(record, imageID: imageID, in: &store)
                    }
                }
                // Reported before the binding ends: a question answered after the accessors were called, by any
                // thread, finds their diagnostics in the hives.
                report(failures)
                store.withLock { store in
                    store.binding = false
                    store.binder = nil
                    store.removedWhileBinding = []
                    if store.pending == nil { unbound = false }
                }
                bound.signal()
            }
        }
    }

    /// The records the accessors made, and the image of each, in memory of their own: an array of records, tuples or
    /// structs would make the runtime build the array's type (and the tuple's) at the first question, ~20 K
    /// instructions, and an object per record cost an allocation each.
    final class MadeRecords: ListNode {
        private let records: UnsafeMutablePointer<_BeeHiveTypedRecord>
        private let imageIDs: UnsafeMutablePointer<UInt64>
        private let capacity: Int
        private(set) var count = 0

        /// The next batch in a list of them (``Store/kept``).
        var next: MadeRecords?

        /// The image of the first record: every record of a kept batch comes from one section.
        var imageID: UInt64? { count > 0 ? imageIDs[0] : nil }

        init(capacity: Int) {
            self.capacity = capacity
            records = .allocate(capacity: capacity)
            imageIDs = .allocate(capacity: capacity)
        }

        deinit {
            records.deinitialize(count: count)
            records.deallocate()
            imageIDs.deallocate()
        }

        func append(_ record: consuming _BeeHiveTypedRecord, imageID: UInt64) {
            precondition(count < capacity, "more typed records than their sections hold")
            (records + count).initialize(to: record)
            imageIDs[count] = imageID
            count += 1
        }

        /// Calls `body` with each record and its image, in the order they were made.
        func forEach(_ body: (borrowing _BeeHiveTypedRecord, UInt64) -> Void) {
            for index in 0..<count { body(records[index], imageIDs[index]) }
        }
    }

    /// What calling one accessor gave.
    private enum Outcome {
        case success(_BeeHiveTypedRecord)
        case failure(String)
    }

    /// Calls an accessor with this copy's guard, into `buffer` (room for one record) once zeroed; reads a record only
    /// once its stamp shows that this library wrote it, and moves it out, leaving `buffer` uninitialized.
    private static func call(
        _ accessor: _BeeHiveTypedRecord.Accessor, stamp: UInt64, into buffer: UnsafeMutableRawPointer
    ) -> Outcome {
        let size = MemoryLayout<_BeeHiveTypedRecord>.size
        guard
            _BeeHiveTypedRecord.call(
                accessor, expecting: _BeeHiveTypedRecord.self, stamp: stamp, into: buffer, size: size)
        else {
            return .failure(
                "its accessor answered that it makes no record for this copy of BeeHive (a plugin built with a "
                    + "BeeHive of its own, or a record of another kind)")
        }
        guard buffer.load(fromByteOffset: _BeeHiveTypedRecord.stampOffset, as: UInt64.self) == stamp else {
            let untouched = UnsafeRawBufferPointer(start: buffer, count: size).allSatisfy { $0 == 0 }
            return .failure(
                untouched
                    ? "its accessor reported success but wrote nothing"
                    : "its accessor reported success but wrote something other than this BeeHive's typed record "
                        + "(expected the stamp it was given)")
        }
        return .success(buffer.assumingMemoryBound(to: _BeeHiveTypedRecord.self).move())
    }

    private static func publish(_ made: borrowing _BeeHiveTypedRecord, imageID: UInt64, in store: inout Store) {
        switch made.payload {
        case .type(let type):
            store.declared[made.name] = Declared(type: type, implementation: nil, imageID: imageID)
        case .service(let service, let serviceName, let implementation, let make, _):
            var published: Declared?
            store.declared.modify(
                made.name, initial: Declared(type: implementation, implementation: implementation, imageID: imageID)
            ) {
                $0.services = $0.services.adding(service, make)
                published = $0
            }
            guard let published else { return }
            store.services[ObjectIdentifier(service)] = TypedService(
                serviceName: serviceName, implementationName: made.name, declared: published)
        }
    }

    /// One diagnostic per failed record, to the hive that scanned its image (kept, then logged without a lock).
    private static func report(_ failures: [(PendingSection, offset: Int, String)]) {
        for (origin, offset, reason) in failures {
            guard let hive = origin.reporter else { continue }
            let source = RegistrationSource.annotation(
                image: origin.imagePath, section: origin.section, offset: offset,
                sectionFileOffset: origin.sectionFileOffset, imageID: origin.imageID)
            hive.record([
                Diagnostic(
                    .error,
                    HiveError(
                        .malformedRecord,
                        "typed record at offset \(offset) of section \(origin.section): \(reason); it was "
                            + "skipped, and its service resolves by name",
                        source: source))
            ])
        }
    }
}

/// A condition a thread waits for while another one calls accessors (no lock is held while they run).
private final class BindSignal: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var generation = 0

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    /// Waits until `done` holds, checking it again after every signal.
    func wait(until done: () -> Bool) {
        pthread_mutex_lock(mutex)
        let seen = generation
        pthread_mutex_unlock(mutex)
        if done() { return }
        pthread_mutex_lock(mutex)
        while generation == seen { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    func signal() {
        pthread_mutex_lock(mutex)
        generation &+= 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
