import BeeHive
import BeeHiveRouter

/// A pattern as the reference matcher sees it, read back from its normalised spelling.
struct Shape: Equatable, CustomStringConvertible {
    enum Part: Equatable {
        case literal(String)
        case parameter(String)
        case wildcard
        /// A `~` before the last component: any one component, captured by no name (MGJRouter's middle `~`).
        case anyComponent
    }

    /// The scheme it is registered under (the router's, for a pattern written without one).
    let scheme: String
    /// Whether the pattern was written with its scheme.
    let hasOwnScheme: Bool
    let parts: [Part]
    /// MGJRouter's literal suffix of a `:name.suffix` parameter, decoded, by part index.
    let suffixes: [Int: String]

    init(_ pattern: RoutePattern, scheme: String) {
        self.scheme = scheme
        hasOwnScheme = pattern.scheme != nil
        var body = Substring(pattern.description)
        if let own = pattern.scheme { body = body.dropFirst(own.utf8.count + 3) }
        // Split as URLs are, on the byte '/'. A ':' or '~' that a combining mark follows is no parameter or
        // wildcard (the pattern parser compares characters), so compare characters there too.
        var suffixes: [Int: String] = [:]
        let components = pathComponents(body)
        let parts = components.enumerated().map { index, component -> Part in
            // Last, `~` is the rest of the path; anywhere else it is exactly one component.
            if component == "~" { return index == components.count - 1 ? .wildcard : .anyComponent }
            if component.hasPrefix(":") {
                // The name ends at the first byte '.' or '&': the rest is the suffix.
                let bytes = component.utf8.dropFirst()
                guard let start = bytes.firstIndex(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "&") })
                else { return .parameter(String(decoding: bytes, as: UTF8.self)) }
                suffixes[index] = percentDecoded(Substring(String(decoding: bytes[start...], as: UTF8.self)))
                return .parameter(String(decoding: bytes[..<start], as: UTF8.self))
            }
            return .literal(percentDecoded(Substring(component)))
        }
        // The bare `scheme://` (or an empty pattern on a scheme router) is the scheme's fallback, `scheme://~`.
        self.parts = parts.isEmpty ? [.wildcard] : parts
        self.suffixes = suffixes
    }

    private init(scheme: String, hasOwnScheme: Bool, parts: [Part], suffixes: [Int: String]) {
        self.scheme = scheme
        self.hasOwnScheme = hasOwnScheme
        self.parts = parts
        self.suffixes = suffixes
    }

    /// Whether a `~` stands before the last component (`Router.generateURL` refuses such a pattern).
    var hasAnyComponent: Bool { parts.contains(.anyComponent) }

    /// The shape with each middle `~` replaced by the literal at its position in `components` (not empty), written
    /// with its scheme: a pattern that `Router.generateURL` fills into a URL this shape matches with those components.
    func filling(anyComponentsFrom components: [String]) -> Shape {
        let filled = parts.enumerated().map { index, part in
            part == .anyComponent ? .literal(components[index]) : part
        }
        return Shape(scheme: scheme, hasOwnScheme: true, parts: filled, suffixes: suffixes)
    }

    /// Reads a pattern as a router reports it (always with a scheme).
    static func reading(_ spelling: String) -> Shape? {
        guard let pattern = try? RoutePattern(spelling), let scheme = pattern.scheme else { return nil }
        return Shape(pattern, scheme: scheme)
    }

    /// Same scheme and components (whether the pattern was written with its scheme does not matter).
    static func == (a: Shape, b: Shape) -> Bool {
        a.scheme == b.scheme && a.parts == b.parts && a.suffixes == b.suffixes
    }

    /// A spelling of it, as a router reports it (a literal may have other spellings).
    var description: String {
        let body = parts.enumerated().map { index, part in
            switch part {
            case .literal(let text): encodedLiteral(text)
            case .parameter(let name): ":" + name + (suffixes[index].map(encodedSuffix) ?? "")
            case .wildcard, .anyComponent: "~"
            }
        }
        return "\(scheme)://" + body.joined(separator: "/")
    }

    /// Same scheme, and the same literals, parameters and wildcard in the same places (names aside; a middle `~` is a
    /// parameter).
    func sameRoute(as other: Shape) -> Bool {
        guard scheme == other.scheme, parts.count == other.parts.count else { return false }
        return zip(parts, other.parts).allSatisfy { a, b in
            switch (a, b) {
            case (.parameter, .parameter), (.wildcard, .wildcard), (.anyComponent, .anyComponent): true
            case (.parameter, .anyComponent), (.anyComponent, .parameter): true
            case (.literal(let x), .literal(let y)): x == y
            default: false
            }
        }
    }

    /// Whether the pattern matches these decoded URL components.
    func matches(_ components: [String]) -> Bool {
        for (index, part) in parts.enumerated() {
            switch part {
            case .wildcard: return true
            case .literal(let text): guard index < components.count, components[index] == text else { return false }
            case .parameter, .anyComponent: guard index < components.count else { return false }
            }
        }
        return parts.count == components.count
    }

    /// Precedence between two patterns that match the same components: at the first position where they
    /// differ, a literal beats a parameter (or a middle `~`, which ranks as one), which beats a wildcard; a pattern
    /// that ends beats a wildcard that matches nothing.
    func precedes(_ other: Shape, _ components: [String]) -> Bool {
        rank.lexicographicallyPrecedes(other.rank)
    }

    private var rank: [Int] {
        parts.map { part in
            switch part {
            case .literal: 1
            case .parameter, .anyComponent: 2
            case .wildcard: 3
            }
        } + (parts.last == .wildcard ? [] : [0])
    }

    /// The values of the parameters for these components.
    func captures(_ components: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for (index, part) in parts.enumerated() {
            if case .parameter(let name) = part { result[name] = capture(components[index], at: index) }
        }
        return result
    }

    /// A parameter's value: the component, without the parameter's suffix at its end when it is longer than it.
    func capture(_ component: String, at index: Int) -> String {
        guard let suffix = suffixes[index], component.utf8.count > suffix.utf8.count,
            component.utf8.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
        else { return component }
        return String(decoding: component.utf8.dropLast(suffix.utf8.count), as: UTF8.self)
    }

    /// The component a value of the parameter at `index` becomes in a generated URL: the value, then the suffix.
    func component(_ value: String, at index: Int) -> String { value + (suffixes[index] ?? "") }

    /// The components the wildcard matches.
    func wildcardComponents(_ components: [String]) -> [String] {
        parts.last == .wildcard ? Array(components[(parts.count - 1)...]) : []
    }
}

/// A parameter's suffix as patterns print it: its first byte ('.' or '&') as it is, the rest escaped as a literal
/// where it would change the parse.
func encodedSuffix(_ suffix: String) -> String {
    let rest = String(decoding: suffix.utf8.dropFirst(), as: UTF8.self)
    let reserved = rest.unicodeScalars.contains { "/?#%".unicodeScalars.contains($0) }
    let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    let escaped = rest.utf8.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : "%" + hex($0) }.joined()
    return String(decoding: suffix.utf8.prefix(1), as: UTF8.self) + (reserved ? escaped : rest)
}

/// Decodes `%XX` escapes (the spelling of a literal is valid: it parsed).
func percentDecoded(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    while let byte = utf8.popFirst() {
        if byte == UInt8(ascii: "%"), utf8.count >= 2,
            let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
        {
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        } else {
            bytes.append(byte)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A literal as patterns print it: as written, unless it would change the parse.
func encodedLiteral(_ text: String) -> String {
    if text == "~" { return "%7E" }
    // '/', '?', '#' and '%' change the parse wherever they are, even with a combining mark after them.
    let reserved = text.unicodeScalars.contains { "/?#%".unicodeScalars.contains($0) }
    guard reserved || text.hasPrefix(":") else { return text }
    let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    return text.utf8.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : "%" + hex($0) }.joined()
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

/// The non-empty `/`-separated components of a path, split on the byte '/' as URLs are (a '/' that a combining
/// mark follows still separates).
func pathComponents(_ path: some StringProtocol) -> [String] {
    path.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
}
