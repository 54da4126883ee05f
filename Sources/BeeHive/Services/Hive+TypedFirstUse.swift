#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Hive {
    /// The first use, unnamed and cached, of a service whose typed record (a Swift annotation) makes its instance
    /// boxed as `type`, the type or key asked for: what ``attempt(for:typeKey:shouldCache:entry:)`` and
    /// ``TypedLookup`` do for it, in fewer steps. `nil` when the request needs them: no entry of a typed record indexed
    /// under `type`, whose slot never held an instance (a removed instance goes the general way), or whose maker boxes
    /// another type.
    ///
    /// Under the lock only the registry's answers: the entry, the claim of its slot, then the instance kept in the
    /// entry, boxed for the cached path. `isSingleton` and the maker run outside it.
    func typedFirstUse(_ type: ObjectIdentifier) -> TypedInstance? {
        // A program that never kept a typed record has no entry this can serve: one load, no lock.
        guard TypedRecords.hasRecords.isSet else { return nil }
        let found: (ServiceEntry, any ServiceImplementation.Type)? = state.withLock { state in
            guard let entry = state.typeIndex.unnamed(type), entry.generation == 0, entry.annotated != nil,
                case .implementation(let implementation, _) = entry.provider
            else { return nil }
            return (entry, implementation)
        }
        // The entry's maker is a constant of it, read without the lock.
        guard let (entry, implementation) = found, let annotated = entry.annotated,
            ServiceBoxes.boxes(annotated, as: type)
        else { return nil }
        let make = annotated.make
        guard implementation.isSingleton else {
            let (_, box) = make(false)
            telemetry.countCreated(shared: false)
            return box
        }
        let claimed = state.withLock { _ in
            guard entry.generation == 0, !entry.isWithdrawn else { return false }
            return entry.claim()
        }
        guard claimed else { return nil }
        let (instance, box) = timeline.span("service.create", category: "binding") { arguments in
            if arguments.isRecording {
                arguments["service"] = .string(entry.registration.displayName)
                arguments["implementation"] = .string(entry.registration.implementation)
            }
            return make(true)
        }
        // Kept in the entry, where the cached path finds it while the entry serves `type` (`sharedInstance(_:name:)`).
        let waited = state.withLock { _ in entry.keep(instance, boxed: TypedBox(type: type, object: box)) }
        waited?.finish()
        telemetry.countCreated(shared: true)
        return box
    }
}
