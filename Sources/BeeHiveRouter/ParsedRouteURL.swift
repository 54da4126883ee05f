import BeeHive

/// A URL string split into the parts routing needs: scheme, decoded path components and query items.
///
/// The parser is deliberately simpler and more lenient than Foundation's `URL`: it splits
/// `scheme://host/path?query#fragment` at the first `://`, the first `?` and the first `#`, so a query value
/// may itself contain `://`, `/` or `?` (`app://web?url=https://x.y/z?a=1`), and raw non-ASCII text is
/// accepted anywhere. The host counts as the first path component, empty components are dropped (so
/// `app://user/5/` and `app://user//5` equal `app://user/5`), every component is percent-decoded after
/// splitting (so `%2F` stays inside its component), and the scheme is lower-cased.
package struct ParsedRouteURL: Sendable, Hashable {
    /// One `name=value` pair of the query, decoded.
    struct QueryItem: Sendable, Hashable {
        var name: String
        var value: String
    }

    /// The text as given.
    package var original: String
    /// The lower-cased scheme, or `nil` for a scheme-less pattern such as `user/:id`.
    package var scheme: String?
    /// The decoded host and path components, without empty ones.
    package var segments: [String]
    /// The components as written (still percent-encoded), parallel to ``segments``.
    var rawSegments: [String]
    /// The decoded query items in order; a name may repeat.
    var queryItems: [QueryItem]
    /// Whether the text had a `?`.
    var hasQuery: Bool
    /// The fragment after `#`, as written, or `nil`.
    var fragment: String?

    /// Parses a URL or pattern.
    ///
    /// - Parameters:
    ///   - text: The URL.
    ///   - allowsMissingScheme: Whether `user/:id` (no `scheme://`) is accepted.
    ///   - decodesComponents: Whether to percent-decode path components (patterns decode only literals).
    /// - Throws: ``RouterError/Code/malformedURL``.
    package init(_ text: String, allowsMissingScheme: Bool = false, decodesComponents: Bool = true) throws(RouterError)
    {
        original = text
        var rest = Substring(text)
        if let separator = Self.schemeSeparator(in: rest) {
            let scheme = rest[..<separator.lowerBound]
            guard Self.isValidScheme(scheme) else {
                throw RouterError(
                    .malformedURL,
                    "'\(text)': expected a scheme of letters, digits, '+', '-' or '.' starting with a letter "
                        + "before '://', found '\(scheme)'"
                )
            }
            self.scheme = scheme.lowercased()
            rest = rest[separator.upperBound...]
        } else if allowsMissingScheme {
            scheme = nil
        } else {
            throw RouterError(.malformedURL, "'\(text)': expected 'scheme://host/path', found no '://'")
        }

        // Split on bytes: '#', '?', '/', '&' and '=' are ASCII, and stepping by Character is far slower.
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        } else {
            fragment = nil
        }
        var queryText: Substring = ""
        if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            queryText = rest[rest.index(after: question)...]
            rest = rest[..<question]
            hasQuery = true
        } else {
            hasQuery = false
        }

        rawSegments = rest.utf8.split(separator: UInt8(ascii: "/")).map { String(Substring($0)) }
        if decodesComponents {
            segments = try rawSegments.enumerated().map { (index, raw) throws(RouterError) in
                try Self.decode(raw, what: "path component \(index + 1)", in: text)
            }
        } else {
            segments = rawSegments
        }

        queryItems = []
        for pairBytes in queryText.utf8.split(separator: UInt8(ascii: "&")) {
            let pair = Substring(pairBytes)
            let name: Substring
            let value: Substring
            if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                name = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                name = pair
                value = ""
            }
            guard !name.isEmpty else { continue }
            let decodedName = try Self.decode(String(name), what: "query item name", in: text)
            let decodedValue = try Self.decode(String(value), what: "value of query item '\(decodedName)'", in: text)
            queryItems.append(QueryItem(name: decodedName, value: decodedValue))
        }
    }

    /// The query items as a dictionary; for a repeated name the last value wins.
    package var queryDictionary: [String: String] {
        var result: [String: String] = [:]
        for item in queryItems {
            result[item.name] = item.value
        }
        return result
    }

    /// A normalised spelling: lower-case scheme, every component and query item percent-encoded the same way.
    var canonical: String {
        Self.render(scheme: scheme, segments: segments, queryItems: queryItems, fragment: fragment)
    }

    /// Builds a URL string from decoded parts, encoding each component.
    static func render(
        scheme: String?,
        segments: [String],
        queryItems: [QueryItem],
        fragment: String? = nil
    ) -> String {
        var text = scheme.map { "\($0)://" } ?? ""
        text += segments.map(RouteComponentCoding.encode).joined(separator: "/")
        if !queryItems.isEmpty {
            text += "?"
            text += queryItems.map {
                RouteComponentCoding.encode($0.name) + "=" + RouteComponentCoding.encode($0.value)
            }
            .joined(separator: "&")
        }
        if let fragment {
            text += "#" + fragment
        }
        return text
    }

    /// `what` is only built when the component is malformed: this runs for every component of every URL.
    private static func decode(
        _ raw: String, what: @autoclosure () -> String, in text: String
    ) throws(RouterError)
        -> String
    {
        guard let decoded = RouteComponentCoding.decode(raw) else {
            throw RouterError(
                .malformedURL,
                "'\(text)': expected \(what()) to use valid '%XX' escapes of UTF-8 text, found '\(raw)'"
            )
        }
        return decoded
    }

    /// The range of the first `://`, found on the UTF-8 bytes.
    private static func schemeSeparator(in text: Substring) -> Range<Substring.Index>? {
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index < utf8.endIndex {
            if utf8[index] == UInt8(ascii: ":") {
                let slash1 = utf8.index(after: index)
                if slash1 < utf8.endIndex, utf8[slash1] == UInt8(ascii: "/") {
                    let slash2 = utf8.index(after: slash1)
                    if slash2 < utf8.endIndex, utf8[slash2] == UInt8(ascii: "/") {
                        return index..<utf8.index(after: slash2)
                    }
                }
            }
            index = utf8.index(after: index)
        }
        return nil
    }

    /// An ASCII letter, then ASCII letters, digits, '+', '-' or '.'.
    private static func isValidScheme(_ scheme: Substring) -> Bool {
        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
        guard let first = scheme.utf8.first, isLetter(first) else { return false }
        return scheme.utf8.allSatisfy { b in
            isLetter(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "+")
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        }
    }
}
