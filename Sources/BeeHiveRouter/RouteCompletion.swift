import BeeHive
import Synchronization

/// The completion of an opened URL, as a route handler receives it: MGJRouter's `MGJRouterParameterCompletion`.
///
/// ``Router/open(_:userInfo:completion:)`` wraps its `completion` closure in one of these and hands it to the handler
/// in ``RouteRequest/completion``. A handler registered with
/// ``Router/register(pattern:fileID:line:completingHandler:)`` owns it: the router does not call it, the handler
/// calls it when its work is done, on any thread, possibly long after `open` returned (MGJRouter's asynchronous
/// handlers). A plain handler may call it too; otherwise the router calls it with the handler's result right after
/// the handler returns, as before.
///
/// The completion runs at most once: later calls do nothing, so a handler that both calls it and returns a result
/// never completes twice.
///
/// ```swift
/// try router.register(pattern: "mgj://upload/:file") { request, completion in
///     uploadQueue.async { completion(UploadResult(file: request.parameters["file"])) }
/// }
/// try router.open("mgj://upload/photo.png") { result in print(result as? UploadResult) }
/// ```
public final class RouteCompletion: Sendable {
    private enum Phase: UInt8 {
        case pending = 0
        /// A completing handler owns it; the router will not call it.
        case handedOver = 1
        case completed = 2
    }

    private let body: (@Sendable (Any?) -> Void)?
    private let phase = Atomic<UInt8>(Phase.pending.rawValue)

    /// Wraps a completion closure.
    ///
    /// ```swift
    /// let completion = RouteCompletion { result in print(result ?? "nil") }
    /// completion("done")    // prints "done"
    /// completion("again")   // does nothing: a completion runs once
    /// ```
    ///
    /// - Parameter body: The closure; `nil` for a completion that does nothing (a URL opened without one).
    public init(_ body: (@Sendable (Any?) -> Void)?) {
        self.body = body
    }

    /// The completion of every URL opened without one: calling it does nothing, so one instance serves them all.
    private static let inert = RouteCompletion(nil)

    /// A completion that does nothing, for URLs opened without one and requests made without a router (tests of a
    /// ``RouteHandler``). Its ``isCompleted`` stays `false`.
    public static var none: RouteCompletion { inert }

    /// Calls the caller's completion with a result, the first time only.
    ///
    /// - Parameter result: What the route produced (MGJRouter's `id result`).
    public func callAsFunction(_ result: Any?) {
        guard body != nil else { return }
        var current = phase.load(ordering: .acquiring)
        while current != Phase.completed.rawValue {
            let (exchanged, original) = phase.compareExchange(
                expected: current, desired: Phase.completed.rawValue, ordering: .acquiringAndReleasing)
            if exchanged {
                body?(result)
                return
            }
            current = original
        }
    }

    /// Whether the completion has been called.
    public var isCompleted: Bool { phase.load(ordering: .acquiring) == Phase.completed.rawValue }

    /// Marks the completion as the handler's: the router will not call it after the handler returns.
    func handOver() {
        guard body != nil else { return }
        _ = phase.compareExchange(
            expected: Phase.pending.rawValue, desired: Phase.handedOver.rawValue, ordering: .acquiringAndReleasing)
    }

    /// Called by the router after a handler returned: completes with `result` unless the handler owns the completion
    /// or already called it.
    func finish(with result: Any?) {
        guard body != nil, phase.load(ordering: .acquiring) == Phase.pending.rawValue else { return }
        self(result)
    }
}
