#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension InstanceSlot {
    /// What a request that may take the shared instance finds in a slot (``ServiceEntry/visitSlot()``).
    enum Visit {
        /// The shared instance, boxed as the service it was first asked for when it was, and the slot's generation.
        case ready(Any, boxed: TypedBox?, generation: Int)
        /// Being made by another thread: wait on the ticket, then ask again.
        case wait(CreationTicket)
        /// Being made by this very thread: its initializer asked for its own service.
        case cycle
        /// Not made yet: the caller makes it (a singleton's creation claims the slot first).
        case empty
    }
}

extension ServiceEntry {
    /// What the calling thread finds in the shared-instance slot; the first thread that has to wait for another's
    /// creation makes the ticket the others wait on, so an uncontended creation allocates nothing. Under the hive's
    /// lock.
    @inline(__always)
    func visitSlot() -> InstanceSlot.Visit {
        switch slot {
        case .ready(let instance):
            return .ready(instance, boxed: typedInstance, generation: generation)
        case .creating(let thread, let ticket):
            if pthread_equal(thread, pthread_self()) != 0 { return .cycle }
            if let ticket { return .wait(ticket) }
            let first = CreationTicket()
            slot = .creating(thread: thread, ticket: first)
            return .wait(first)
        case .empty:
            return .empty
        }
    }
}
