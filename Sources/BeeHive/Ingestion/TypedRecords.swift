import Synchronization
internal import _BeeHiveDiscovery

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
/// The first one is held inline: most implementations serve one service, and then this allocates nothing.
struct ServiceBoxes {
    private var first: (service: any Any.Type, make: ServiceMaker)?
    private var others: [(service: any Any.Type, make: ServiceMaker)] = []

    /// The annotated services, as types.
    var types: [any Any.Type] { (first.map { [$0.service] } ?? []) + others.map(\.service) }

    mutating func append(_ service: any Any.Type, _ make: @escaping ServiceMaker) {
        if first == nil { first = (service, make) } else { others.append((service, make)) }
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
/// Process-wide, like the types themselves. Filled by every hive that scans loaded images. Registration only keeps
/// the accessors (a scan registers services by their JSON records, as for C annotations); the first question calls
/// them all at once, so a program that never asks pays nothing more.
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
        /// The services the implementation was annotated with, and the boxes that convert to them.
        var services = ServiceBoxes()
        let imageID: UInt64
    }

    /// Where the typed records of one section lie and the hive to tell when one fails: shared by the section's
    /// pending accessors.
    final class Origin {
        let imageID: UInt64
        let imagePath: String
        let section: String
        let sectionFileOffset: UInt64
        weak var reporter: Hive?
        /// The base address of the image that holds the accessors, and the loader's count of unloaded images when
        /// the records were added: once that count moves, the image must still be the one mapped there.
        let imageBase: UInt
        let unloads: UInt64

        init(_ section: RecordSection, reporter: Hive?, imageBase: UInt, unloads: UInt64) {
            imageID = section.imageID
            imagePath = section.imagePath
            self.section = section.sectionName
            sectionFileOffset = section.fileOffset
            self.reporter = reporter
            self.imageBase = imageBase
            self.unloads = unloads
        }
    }

    /// An accessor not called yet, and where its record lies.
    struct Pending {
        let accessor: _BeeHiveTypedRecord.Accessor
        let offset: Int
        let origin: Origin
    }

    private struct Store {
        var pending: [Pending] = []
        var declared = KeyedTable<String, Declared>()
        /// Whether a thread is calling accessors; others wait for it (on `bound`) instead of calling them again.
        var binding = false
        /// The thread calling accessors: an accessor that asks BeeHive about types gets no answer from typed
        /// records instead of waiting for itself.
        var binder: pthread_t?
        /// Images unloaded while accessors were being called: their records are not published.
        var removedWhileBinding: Set<UInt64> = []
    }

    private static let store = LockedValue(Store())
    /// Whether accessors wait to be called or are being called: what lets ``bindPending()`` cost one atomic load
    /// once everything is bound.
    private static let unbound = Atomic<Bool>(false)
    /// Signalled when a thread has published what its accessors made.
    private static let bound = BindSignal()

    /// Keeps the accessors of the typed records of `section` (checked by the scanner: magic, layout version, an
    /// accessor inside the image's code) for the first question. `reporter` gets the diagnostics of the records
    /// that fail when they are called.
    static func add(_ section: RecordSection, reporter: Hive? = nil) {
        let size = RecordFormat.typedRecordSize
        var accessors: [Pending] = []
        accessors.reserveCapacity(section.bytes.count / size)
        var origin: Origin?
        var offset = 0
        while offset + size <= section.bytes.count {
            defer { offset += size }
            let address = section.bytes.loadUnaligned(
                fromByteOffset: offset + RecordFormat.typedRecordAccessorOffset, as: UInt.self)
            guard section.bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self) == _BeeHiveTypedRecord.magic,
                section.bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    == _BeeHiveTypedRecord.layoutVersion,
                let pointer = UnsafeRawPointer(bitPattern: address)
            else { continue }  // padding, or an entry the scanner reported and zeroed
            // The scanner checked that every accessor lies in this image's code: one look-up gives the image.
            let shared =
                origin
                ?? Origin(
                    section, reporter: reporter, imageBase: imageBase(of: pointer),
                    unloads: ImageScanner.unloadedImageCount)
            origin = shared
            accessors.append(
                Pending(
                    accessor: unsafeBitCast(pointer, to: _BeeHiveTypedRecord.Accessor.self), offset: offset,
                    origin: shared))
        }
        guard !accessors.isEmpty else { return }
        store.withLock { store in
            store.pending += accessors
            unbound.store(true, ordering: .releasing)
        }
    }

    /// Forgets the records of an unloaded image: their accessors and closures are gone with it.
    static func remove(image imageID: UInt64) {
        store.withLock { store in
            store.pending.removeAll { $0.origin.imageID == imageID }
            store.declared.removeAll { $0.imageID == imageID }
            if store.binding { store.removedWhileBinding.insert(imageID) }
        }
    }

    /// The type a typed record declares under `name`.
    static func type(named name: String) -> (any Any.Type)? {
        bindPending()
        return store.withLock { $0.declared[name]?.type }
    }

    /// The service implementation a typed record declares under `name`.
    static func implementation(named name: String) -> Declared? {
        bindPending()
        return store.withLock { store in
            guard let declared = store.declared[name], declared.implementation != nil else { return nil }
            return declared
        }
    }

    /// The names of the implementations that typed records annotate with the service `service`. Calls no
    /// accessor (it may run under a hive's lock): only records bound by an earlier ``bindPending()`` count.
    static func implementationNames(annotatedWith service: ObjectIdentifier) -> [String] {
        store.withLock { store in
            store.declared.entries.filter { $0.value.services.maker(for: service) != nil }.map(\.key)
        }
    }

    /// Calls the pending accessors, all at once, outside every lock, and publishes what they made; a thread that
    /// finds another one calling them waits until it has published. Call with no lock held.
    static func bindPending() {
        guard unbound.load(ordering: .acquiring) else { return }
        while true {
            enum Step { case done, wait, bind([Pending]) }
            let step: Step = store.withLock { store in
                if store.binding {
                    return store.binder.map { pthread_equal($0, pthread_self()) != 0 } == true ? .done : .wait
                }
                guard !store.pending.isEmpty else { return .done }
                store.binding = true
                store.binder = pthread_self()
                defer { store.pending = [] }
                return .bind(store.pending)
            }
            switch step {
            case .done: return
            case .wait: bound.wait { store.withLock { !$0.binding } }
            case .bind(let pending):
                var made: [(Pending, _BeeHiveTypedRecord)] = []
                var failures: [(Pending, String)] = []
                made.reserveCapacity(pending.count)
                let unloads = ImageScanner.unloadedImageCount
                // An image unloaded since its records were added, by a hive that has not rescanned since, is not
                // called into: its records are dropped (that hive's rescan withdraws its registrations).
                for record in pending
                where record.origin.unloads == unloads
                    || imageBase(
                        of: UnsafeRawPointer(
                            unsafeBitCast(record.accessor, to: UnsafeRawPointer.self))) == record.origin.imageBase
                {
                    switch call(record.accessor) {
                    case .success(let value): made.append((record, value))
                    case .failure(let reason): failures.append((record, reason))
                    }
                }
                store.withLock { store in
                    store.declared.reserveCapacity(made.count)
                    for (record, value) in made where !store.removedWhileBinding.contains(record.origin.imageID) {
                        publish(value, imageID: record.origin.imageID, in: &store.declared)
                    }
                    store.binding = false
                    store.binder = nil
                    store.removedWhileBinding = []
                    if store.pending.isEmpty { unbound.store(false, ordering: .releasing) }
                }
                bound.signal()
                report(failures)
            }
        }
    }

    /// The base address of the loaded image that holds `address`, or 0.
    private static func imageBase(of address: UnsafeRawPointer) -> UInt { ImageScanner.imageBase(of: address) }

    /// What calling one accessor gave.
    private enum Outcome {
        case success(_BeeHiveTypedRecord)
        case failure(String)
    }

    /// Calls an accessor with this copy's guard, into zeroed memory; reads a record only once its stamp shows
    /// that this library wrote it.
    private static func call(_ accessor: _BeeHiveTypedRecord.Accessor) -> Outcome {
        let size = MemoryLayout<_BeeHiveTypedRecord>.size
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: size, alignment: MemoryLayout<_BeeHiveTypedRecord>.alignment)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        var stamp = UInt64.random(in: 1...UInt64.max)
        var expected: any Any.Type = _BeeHiveTypedRecord.self
        let wrote = withUnsafePointer(to: &expected) { type in
            withUnsafePointer(to: &stamp) { hint in accessor(buffer, UnsafeRawPointer(type), UnsafeRawPointer(hint)) }
        }
        guard wrote else {
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

    private static func publish(
        _ made: _BeeHiveTypedRecord, imageID: UInt64, in declared: inout KeyedTable<String, Declared>
    ) {
        switch made.payload {
        case .type(let type):
            declared[made.name] = Declared(type: type, implementation: nil, imageID: imageID)
        case .service(let service, let implementation, let make):
            declared.modify(
                made.name, initial: Declared(type: implementation, implementation: implementation, imageID: imageID)
            ) { $0.services.append(service, make) }
        }
    }

    /// One diagnostic per failed record, to the hive that scanned its image (kept, then logged without a lock).
    private static func report(_ failures: [(Pending, String)]) {
        for (record, reason) in failures {
            let origin = record.origin
            guard let hive = origin.reporter else { continue }
            let source = RegistrationSource.annotation(
                image: origin.imagePath, section: origin.section, offset: record.offset,
                sectionFileOffset: origin.sectionFileOffset, imageID: origin.imageID)
            hive.record([
                Diagnostic(
                    .error,
                    HiveError(
                        .malformedRecord,
                        "typed record at offset \(record.offset) of section \(origin.section): \(reason); it was "
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
