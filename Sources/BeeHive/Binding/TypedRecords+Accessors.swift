#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension TypedRecords {
    /// Calls the pending accessors, all at once, outside every lock, and publishes what they made; a thread that
    /// finds another one calling them waits until it has published. Call with no lock held.
    ///
    /// Inlined into its callers: a first use by name asks four times, and with no accessor pending (almost always) the
    /// answer is one load, where a call's frame cost ~30 instructions more.
    @inline(__always)
    static func bindPending() {
        if unbound.isSet { bindAllPending() }
    }

    /// ``bindPending()`` when an accessor waits to be called.
    private static func bindAllPending() {
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
                    if made.count > 0 { hasRecords.set(true) }
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
                    if store.pending == nil { unbound.set(false) }
                }
                bound.signal()
            }
        }
    }

    /// What calling one accessor gave.
    enum Outcome {
        case success(_BeeHiveTypedRecord)
        case failure(String)
    }

    /// Calls an accessor with this copy's guard, into `buffer` (room for one record) once zeroed; reads a record only
    /// once its stamp shows that this library wrote it, and moves it out, leaving `buffer` uninitialized.
    static func call(
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

    /// One diagnostic per failed record, to the hive that scanned its image (kept, then logged without a lock).
    static func report(_ failures: [(PendingSection, offset: Int, String)]) {
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
