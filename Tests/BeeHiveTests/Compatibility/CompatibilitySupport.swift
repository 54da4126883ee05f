import Foundation
import Synchronization

@testable import BeeHive

// Types of the compatibility tests, named as BeeHive's README and demo name theirs.

/// BeeHive README's `HomeServiceProtocol`.
protocol HomeServiceProtocol: AnyObject { func welcome() -> String }

/// README's implementation of `HomeServiceProtocol`; `+singleton` answers YES, as in the demo's `BHViewController`.
final class CompatHomeService: HomeServiceProtocol, ServiceImplementation, @unchecked Sendable {
    static let made = Atomic<Int>(0)
    static var isSingleton: Bool { true }
    let serial: Int
    init() { serial = Self.made.add(1, ordering: .relaxed).newValue }
    func welcome() -> String { "home" }
}

/// The demo's `UserTrackServiceProtocol`, implemented by a transient type.
protocol UserTrackServiceProtocol { func track(_ event: String) -> String }

struct CompatUserTrackService: UserTrackServiceProtocol, ServiceImplementation {
    init() {}
    func track(_ event: String) -> String { "tracked \(event)" }
}

/// A service implementation that implements no protocol of these tests.
final class CompatUnrelatedService: ServiceImplementation {
    init() {}
}

/// A file of the given text in a new temporary directory.
func compatibilityFile(_ name: String, _ contents: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beehive-compat-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(contents.utf8).write(to: url)
    return url.path
}

/// An XML property list around `body`.
func propertyList(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>
    """
}
