import BeeHive
import Logging

/// Keeps what loggers write, for tests that check what a hive (or anything else) logged.
///
/// ```swift
/// let recorder = LogRecorder()
/// let hive = Hive.forTesting(recorder: recorder)
/// try hive.loadServices(from: "broken.plist")
/// #expect(recorder.entries.contains { $0.level == .error && $0.metadata["code"] == "malformedEntry" })
/// ```
public final class LogRecorder: Sendable {
    /// One logged message.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        /// The logger's label.
        public let label: String
        /// The level it was logged at.
        public let level: Logger.Level
        /// The message.
        public let message: String
        /// The metadata, rendered as strings (BeeHive's diagnostics carry `code` and `source`).
        public let metadata: [String: String]

        /// `<level> <message> <metadata>`, for failure messages.
        public var description: String {
            "\(level) \(message)" + (metadata.isEmpty ? "" : " \(metadata.sorted { $0.key < $1.key })")
        }
    }

    private let storage = LockedValue<[Entry]>([])

    /// Makes an empty recorder.
    public init() {}

    /// Everything logged so far, oldest first.
    public var entries: [Entry] { storage.withLock { $0 } }

    /// Forgets everything logged so far.
    public func removeAll() { storage.withLock { $0.removeAll() } }

    /// A logger that writes into this recorder, at every level from `trace` up.
    ///
    /// - Parameter label: The logger's label.
    /// - Returns: The logger.
    public func logger(label: String = "BeeHiveTesting") -> Logger {
        var logger = Logger(label: label) { label in Handler(label: label, recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ entry: Entry) { storage.withLock { $0.append(entry) } }

    /// The log handler behind ``logger(label:)``.
    private struct Handler: LogHandler {
        let label: String
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            recorder.append(
                Entry(
                    label: label, level: event.level, message: event.message.description,
                    metadata: merged.mapValues(\.description)))
        }
    }
}
