import Dispatch

/// The observers of one hive's service registrations, and the queue that delivers their events: one at a time, in
/// the order the registry changed, never under a lock of the hive.
final class ServiceObservers: Sendable {
    struct Observer: Sendable {
        /// The name of the service observed (``TypeLookup/name(of:)``).
        let service: String
        /// Where the observer was added (`file:line`), to name it when it is slow.
        let site: String
        let handler: @Sendable (ServiceEvent) -> Void
    }

    private struct State {
        var observers: [Int: Observer] = [:]
        var next = 0
    }

    private let state = LockedValue(State())
    private let queue = DispatchQueue(label: "BeeHive.ServiceEvents")
    private static let onQueue = DispatchSpecificKey<Bool>()
    /// The path of the plugin that brought an image, by image id.
    private let pluginPath: @Sendable (UInt64) -> String?

    init(pluginPath: @escaping @Sendable (UInt64) -> String?) {
        self.pluginPath = pluginPath
        queue.setSpecific(key: Self.onQueue, value: true)
    }

    /// Adds an observer; returns its token.
    func add(_ observer: Observer) -> Int {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = observer
            return state.next
        }
    }

    /// Removes an observer: no event is delivered to it once the events queued before have been.
    func remove(_ token: Int) { _ = state.withLock { $0.observers.removeValue(forKey: token) } }

    /// Queues `kind` events for `registrations`, for the observers of their services now (or the observer `token`
    /// alone); returns at once. May be called with the registry's lock held: takes only its own, runs no user code.
    func post(_ kind: ServiceEvent.Kind, _ registrations: [ServiceRegistration], only token: Int? = nil) {
        let deliveries = deliveries(registrations, only: token)
        guard !deliveries.isEmpty else { return }
        queue.async { self.deliver(kind, deliveries, progress: nil) }
    }

    /// Delivers `removing` for `registrations` after the events queued before, and waits until every handler
    /// returned, or `timeout` passed; returns the sites of the handlers that had not returned by then.
    func postRemoving(_ registrations: [ServiceRegistration], timeout: Duration) -> [String] {
        let deliveries = deliveries(registrations, only: nil)
        guard !deliveries.isEmpty else { return [] }
        if DispatchQueue.getSpecific(key: Self.onQueue) == true {  // a handler retires a plugin: deliver in line
            deliver(.removing, deliveries, progress: nil)
            return []
        }
        let progress = Progress()
        queue.async { self.deliver(.removing, deliveries, progress: progress) }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        guard progress.done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .timedOut else { return [] }
        return progress.current.withLock { $0 }.map { [$0] } ?? []
    }

    private func deliveries(
        _ registrations: [ServiceRegistration], only token: Int?
    ) -> [(ServiceRegistration, [Observer])] {
        state.withLock { state in
            guard !state.observers.isEmpty else { return [] }
            let observers = state.observers.sorted { $0.key < $1.key }.filter { token == nil || $0.key == token }
            return registrations.compactMap { registration in
                let handlers = observers.map(\.value).filter { $0.service == registration.service }
                return handlers.isEmpty ? nil : (registration, handlers)
            }
        }
    }

    /// Which handler of a `removing` delivery runs, and when all have returned.
    private final class Progress: Sendable {
        let current = LockedValue<String?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    private func deliver(
        _ kind: ServiceEvent.Kind, _ deliveries: [(ServiceRegistration, [Observer])], progress: Progress?
    ) {
        for (registration, observers) in deliveries {
            let event = ServiceEvent(kind, registration, plugin: registration.imageID.flatMap(pluginPath))
            for observer in observers {
                progress?.current.withLock { $0 = observer.site }
                observer.handler(event)
            }
        }
        progress?.current.withLock { $0 = nil }
        progress?.done.signal()
    }
}
