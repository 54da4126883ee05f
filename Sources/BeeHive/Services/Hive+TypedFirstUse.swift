#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Hive {
    /// The first use, unnamed and cached, of a service whose typed record (a Swift annotation) makes its instance
    /// boxed as `type`, the type or key asked for: what ``attempt(for:typeKey:shouldCache:entry:)`` and
    /// ``TypedLookup`` do for it, in fewer steps. `nil` when the request needs them: no entry indexed under `type`, a
    /// slot that is not empty (made, being made, a cycle), a factory, a name still to bind.
    ///
    /// Under the lock only the registry's answers: the entry, the claim of its slot, then the instance kept and
    /// boxed for the cached path. `isSingleton` and the maker run outside it.
    @usableFromInline
    func typedFirstUse(_ type: ObjectIdentifier) -> TypedInstance? {
        TypedRecords.bindPending()  // accessors are foreign code: called before the lock
        let found: (ServiceEntry, any ServiceImplementation.Type, ServiceBoxes)? = state.withLock { state in
            guard let entry = state.typeIndex.unnamed(type), entry.slotIsEmpty,
                case .implementation(let implementation, let boxes) = entry.provider
            else { return nil }
            return (entry, implementation, boxes)
        }
        guard let (entry, implementation, boxes) = found, let make = entry.maker(for: type, in: boxes) else {
            return nil
        }
        guard implementation.isSingleton else {
            let (_, box) = make(false)
            telemetry.countCreated(shared: false)
            return box
        }
        let claimed = state.withLock { _ in
            guard entry.slotIsEmpty, !entry.isWithdrawn else { return false }
            entry.slot = .creating(thread: pthread_self(), ticket: nil)
            return true
        }
        guard claimed else { return nil }
        let (instance, box) = timeline.span("service.create", category: "binding") { arguments in
            if arguments.isRecording {
                arguments["service"] = .string(entry.registration.displayName)
                arguments["implementation"] = .string(entry.registration.implementation)
            }
            return make(true)
        }
        let waited = state.withLock { state in
            let waited = entry.keep(instance, boxed: TypedBox(type: type, object: box))
            // Kept for the cached path while the entry still serves `type` (not withdrawn or outranked meanwhile).
            if state.typeIndex.unnamed(type) === entry, !entry.isWithdrawn {
                state.sharedInstances.set(
                    SharedInstance(entry: entry, generation: entry.generation, box: box),
                    for: TypeKey(type: type, name: nil), expected: state.services.count)
            }
            return waited
        }
        waited?.finish()
        telemetry.countCreated(shared: true)
        return box
    }
}
