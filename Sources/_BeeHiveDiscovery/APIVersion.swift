/// The version of a service protocol's API (`MAJOR.MINOR.PATCH`), as `@BeeHiveAPI("2.1.0")` declares it on the
/// protocol and as a plugin's records say it was built against; shared by the runtime and the `beehive` tool.
///
/// A host serving version `2.1.0` accepts what was built against `2.0.0` through `2.1.x`: the same major version and
/// a minor version no newer than the host's (semantic versioning: a minor version adds, a major version breaks).
package struct APIVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let major: Int
    package let minor: Int
    package let patch: Int

    /// The form, for messages.
    package static let expectedForm = "MAJOR.MINOR or MAJOR.MINOR.PATCH, decimal numbers of at most 9 digits"

    /// Parses `2.1` or `2.1.0`; nil for anything else (a sign, a prefix `v`, a pre-release or build suffix, leading
    /// spaces).
    package init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let number = Int(part)
            else { return nil }
            numbers.append(number)
        }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers.count == 3 ? numbers[2] : 0)
    }

    package init(major: Int, minor: Int, patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    package var description: String { "\(major).\(minor).\(patch)" }

    /// Whether a host serving this version accepts what was built against `built`: the same major version, and a
    /// minor version no newer.
    package func accepts(builtAgainst built: APIVersion) -> Bool {
        built.major == major && built.minor <= minor
    }

    /// The versions a host serving this one accepts, for messages: `2.0 through 2.1`.
    package var acceptedRange: String { minor == 0 ? "\(major).0.x" : "\(major).0 through \(major).\(minor).x" }

    package static func < (lhs: APIVersion, rhs: APIVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    /// The prefix of the text that a protocol's version function (`_beeHiveAPIVersion`, written by `@BeeHiveAPI`)
    /// returns, and that a plugin built against that protocol therefore carries in its read-only data:
    /// `beehive-api:ShopAPI.PriceService@2.1.0`.
    package static let markerPrefix = "beehive-api:"

    /// The protocol's name and version that `marker` gives (`beehive-api:ShopAPI.PriceService@2.1.0`); nil for
    /// other text.
    package static func parse(marker: some StringProtocol) -> (api: String, version: APIVersion)? {
        guard marker.hasPrefix(markerPrefix), let at = marker.lastIndex(of: "@") else { return nil }
        let name = marker[marker.index(marker.startIndex, offsetBy: markerPrefix.count)..<at]
        guard !name.isEmpty, let version = APIVersion(marker[marker.index(after: at)...]) else { return nil }
        return (String(name), version)
    }
}
