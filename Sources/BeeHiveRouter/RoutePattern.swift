import BeeHive

/// A parsed route pattern such as `app://user/:id` or `app://web/~`.
///
/// A pattern is `scheme://` followed by `/`-separated components, the host being the first one. Each component
/// is one of:
/// - a literal, matched exactly after percent-decoding (`user`, `用户`, `%E7%94%A8%E6%88%B7`);
/// - a parameter `:name` (letters, digits, `_` or `-`), which captures one component; MGJRouter's literal suffix
///   after the name is accepted (`:id.html`, a suffix starting with `.` or `&`): the parameter still matches any
///   component, and the suffix is removed from the end of the captured value (`42.html` gives `id` = `42`);
/// - the wildcard `~`: last, it matches the rest of the path (zero or more components); anywhere else it matches
///   exactly one component, whatever it is, and captures nothing (MGJRouter's `app://~/detail/:id`). A `~` in the
///   middle ranks as a `:param` and is one (`app://a/~/b` and `app://a/:x/b` are the same route); name the component
///   (`:name`) to read its value.
///
/// The bare pattern `scheme://` (no component at all) is MGJRouter's scheme-wide fallback: it is the same route as
/// `scheme://~`, which every URL of the scheme matches and which loses to every other route (a `~` at the host
/// position is the lowest precedence there is). So a URL of the scheme that no other route matches reaches it.
///
/// Patterns have no query: query items of an opened URL are always merged into the parameters instead (see
/// ``RouteRequest/parameters``). Two patterns are the *same route* when they differ only in parameter names
/// (`app://search/:query` and `app://search/:keyword`); a ``Router`` rejects the second one.
///
/// ```swift
/// let pattern = try RoutePattern("app://user/:id/posts/:post")
/// pattern.parameterNames  // ["id", "post"]
/// ```
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case wildcard
        /// A `~` before the last component: any one component, captured by no name.
        case anyComponent
    }

    /// The lower-cased scheme, or `nil` for a scheme-less pattern such as `user/:id`.
    public let scheme: String?

    let segments: [Segment]

    /// The literal suffix of each `:name.suffix` parameter, by component position (MGJRouter's `:id.html`).
    ///
    /// Part of equality (two patterns with other suffixes are other patterns) but not of the shape that finds
    /// duplicates: a parameter matches any component whatever its suffix, so `:id.html` and `:id` match the same URLs.
    let parameterSuffixes: [Int: String]

    /// Parses a pattern.
    ///
    /// - Parameter text: The pattern, for example `app://user/:id`; `user/:id` (no scheme) is accepted here and
    ///   given a scheme by the router it is registered with.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedPattern`` when the pattern has a query or
    ///   fragment, an empty or invalid parameter name, or a repeated parameter name.
    public init(_ text: String) throws(RouterError) {
        var suffixes: [Int: String] = [:]
        let url: ParsedRouteURL
        do {
            url = try ParsedRouteURL(text, allowsMissingScheme: true, decodesComponents: false)
        } catch {
            throw RouterError(.malformedPattern, "pattern \(error.message)")
        }
        guard !url.hasQuery, url.fragment == nil else {
            throw RouterError(
                .malformedPattern,
                "pattern '\(text)': expected 'scheme://host/path' without '?' or '#'; query items are not matched, "
                    + "they are merged into the parameters when a URL is opened"
            )
        }
        var segments: [Segment] = []
        var names: Set<String> = []
        for (index, raw) in url.rawSegments.enumerated() {
            let position = "component \(index + 1)"
            if raw == "~" {
                // Last: the rest of the path. Elsewhere: exactly one component, as MGJRouter matches it there.
                segments.append(index == url.rawSegments.count - 1 ? .wildcard : .anyComponent)
            } else if raw.hasPrefix(":") {
                var name = String(raw.dropFirst())
                // Split on bytes: the suffix starts at the first ASCII '.' or '&', whatever follows it.
                let bytes = name.utf8
                if let start = bytes.firstIndex(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "&") }) {
                    let suffix = String(decoding: bytes[start...], as: UTF8.self)
                    guard suffix.utf8.count > 1, let decoded = RouteComponentCoding.decode(suffix) else {
                        throw RouterError(
                            .malformedPattern,
                            "pattern '\(text)': expected ':name' optionally followed by a literal suffix such as "
                                + "'.html' at \(position), found '\(raw)'"
                        )
                    }
                    suffixes[index] = decoded
                    name = String(decoding: bytes[..<start], as: UTF8.self)
                }
                guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.isNameCharacter) else {
                    throw RouterError(
                        .malformedPattern,
                        "pattern '\(text)': expected ':name' of letters, digits, '_' or '-' at \(position), "
                            + "found '\(raw)'"
                    )
                }
                guard names.insert(name).inserted else {
                    throw RouterError(
                        .malformedPattern,
                        "pattern '\(text)': expected each parameter name once, found ':\(name)' again at \(position)"
                    )
                }
                segments.append(.parameter(name))
            } else {
                guard let literal = RouteComponentCoding.decode(raw) else {
                    throw RouterError(
                        .malformedPattern,
                        "pattern '\(text)': expected valid '%XX' escapes at \(position), found '\(raw)'"
                    )
                }
                segments.append(.literal(literal))
            }
        }
        // MGJRouter's `scheme://` is the scheme-wide fallback: the same URLs as `scheme://~` (and an empty pattern,
        // which a scheme router gives its scheme, the same).
        if segments.isEmpty { segments = [.wildcard] }
        self.scheme = url.scheme
        self.segments = segments
        self.parameterSuffixes = suffixes
    }

    init(scheme: String?, segments: [Segment], parameterSuffixes: [Int: String] = [:]) {
        self.scheme = scheme
        self.segments = segments
        self.parameterSuffixes = parameterSuffixes
    }

    /// The names of the `:name` components, in order.
    public var parameterNames: [String] {
        segments.compactMap { segment in
            if case .parameter(let name) = segment { name } else { nil }
        }
    }

    /// Whether the pattern ends with the `~` wildcard.
    public var hasWildcard: Bool { segments.last == .wildcard }

    /// The pattern with the given scheme, used when a scheme-less pattern is registered with a scheme router.
    func withScheme(_ scheme: String) -> RoutePattern {
        RoutePattern(scheme: scheme, segments: segments, parameterSuffixes: parameterSuffixes)
    }

    /// The literal suffix of the parameter at a component position (`.html` for `:id.html`), or `nil`.
    func suffix(at position: Int) -> String? {
        parameterSuffixes.isEmpty ? nil : parameterSuffixes[position]
    }

    /// The normalised spelling, for example `app://user/:id` (literals percent-encoded only where needed).
    public var description: String {
        let body = segments.enumerated().map { position, segment in
            switch segment {
            case .literal(let text): Self.encodeLiteral(text)
            case .parameter(let name): ":" + name + (suffix(at: position).map(Self.encodeSuffix) ?? "")
            case .wildcard, .anyComponent: "~"
            }
        }
        .joined(separator: "/")
        return (scheme.map { "\($0)://" } ?? "") + body
    }

    /// Keeps readable text (including non-ASCII) and escapes only what would change the parse.
    ///
    /// Checked on UTF-8 bytes, so a `/` or a leading `:` followed by a combining mark is escaped too.
    private static func encodeLiteral(_ text: String) -> String {
        if text == "~" { return "%7E" }
        let needsEscape =
            text.utf8.first == UInt8(ascii: ":")
            || text.utf8.contains { byte in
                byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
                    || byte == UInt8(ascii: "%")
            }
        return needsEscape ? RouteComponentCoding.encode(text) : text
    }

    /// A parameter's suffix: its first byte (`.` or `&`, which starts the suffix) as it is, the rest escaped where it
    /// would change the parse, as a literal's (so `:id.html` prints as written and parses back to the same suffix).
    private static func encodeSuffix(_ suffix: String) -> String {
        let bytes = suffix.utf8
        let rest = String(decoding: bytes.dropFirst(), as: UTF8.self)
        let needsEscape = rest.utf8.contains { byte in
            byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
                || byte == UInt8(ascii: "%")
        }
        return String(decoding: bytes.prefix(1), as: UTF8.self)
            + (needsEscape ? RouteComponentCoding.encode(rest) : rest)
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
    }
}
