import BeeHive

/// One redirect: URLs matching a pattern are rewritten to a template before dispatch.
///
/// The `to` template is a URL (any scheme, for example `https` for a web fallback) in which
/// - a path component that is exactly `:name` is replaced by the value `from` captured for `:name`,
/// - a path component that is exactly `~` is replaced by the components `from`'s `~` matched,
/// - a query value that is exactly `:name` (or `~`) is replaced the same way (`~` as a `/`-joined path).
///
/// Substituted values are percent-encoded; everything else in the template is kept as written (so
/// `https://m.example.com:8080/…` stays intact). Query items of the original URL are carried over unless the
/// template sets the same name; the original fragment is kept unless the template has one.
///
/// ```swift
/// let rule = try RedirectRule(from: "app://old/:id", to: "app://new/:id?from=old")
/// // app://old/7?tab=a  →  app://new/7?from=old&tab=a
/// ```
public struct RedirectRule: Sendable, Hashable, CustomStringConvertible {
    private enum TemplatePart: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case wildcard
    }

    /// The pattern a URL must match to be redirected.
    public let from: RoutePattern

    /// The template of the new URL, as given.
    public let to: String

    private let targetPrefix: String
    private let targetPath: [TemplatePart]
    private let targetQuery: [(name: String, value: TemplatePart)]
    private let targetFragment: String?

    /// Makes a rule.
    ///
    /// - Parameters:
    ///   - from: A route pattern with a scheme, for example `app://old/:id` or `app://legacy/~`.
    ///   - to: A URL template that may use `from`'s parameters as `:name` and its wildcard as `~`.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedPattern`` when `from` is not a valid
    ///   pattern with a scheme, or `to` is not a URL or uses a parameter or `~` that `from` does not capture.
    public init(from: String, to: String) throws(RouterError) {
        let pattern = try RoutePattern(from)
        guard pattern.scheme != nil else {
            throw RouterError(.malformedPattern, "redirect from '\(from)': expected 'scheme://…', found no scheme")
        }
        let template: ParsedRouteURL
        do {
            template = try ParsedRouteURL(to, decodesComponents: false)
        } catch {
            throw RouterError(.malformedPattern, "redirect target \(error.message)")
        }
        let names = Set(pattern.parameterNames)
        func part(_ raw: String, _ place: String) throws(RouterError) -> TemplatePart {
            if raw == "~" {
                guard pattern.hasWildcard else {
                    throw RouterError(
                        .malformedPattern,
                        "redirect '\(from)' → '\(to)': expected '~' in the target only when the source ends with "
                            + "'~', found '~' in \(place)"
                    )
                }
                return .wildcard
            }
            if raw.hasPrefix(":") {
                let name = String(raw.dropFirst())
                guard names.contains(name) else {
                    let known = names.isEmpty ? "none" : names.sorted().map { ":" + $0 }.joined(separator: ", ")
                    throw RouterError(
                        .malformedPattern,
                        "redirect '\(from)' → '\(to)': expected the target's parameters to be captured by the source "
                            + "(\(known)), found '\(raw)' in \(place)"
                    )
                }
                return .parameter(name)
            }
            return .literal(raw)
        }
        var path: [TemplatePart] = []
        for (index, raw) in template.rawSegments.enumerated() {
            path.append(try part(raw, "path component \(index + 1)"))
        }
        var query: [(name: String, value: TemplatePart)] = []
        for item in template.queryItems {
            query.append((item.name, try part(item.value, "query item '\(item.name)'")))
        }
        self.from = pattern
        self.to = to
        targetPrefix = template.scheme.map { "\($0)://" } ?? ""
        targetPath = path
        targetQuery = query
        targetFragment = template.fragment
    }

    /// What ``rewrite(_:captures:wildcard:maximumLength:)`` produced.
    enum Rewrite: Sendable, Equatable {
        /// The redirected URL.
        case url(String)
        /// The URL would be longer than allowed: its length in UTF-8 bytes (it was not built).
        case tooLong(bytes: Int)
    }

    /// Builds the redirected URL for a match of ``from``, unless it would be longer than `maximumLength` bytes.
    ///
    /// The URL is measured before it is built, from one piece per template part (each capture and the wildcard
    /// encoded once), so a template that repeats a long capture or `~` costs its parts, not its copies.
    func rewrite(_ url: ParsedRouteURL, captures: [String: String], wildcard: [String], maximumLength: Int) -> Rewrite {
        var encoded: [String: String] = [:]
        func capture(_ name: String) -> String {
            if let value = encoded[name] { return value }
            let value = RouteComponentCoding.encode(captures[name] ?? "")
            encoded[name] = value
            return value
        }
        lazy var wildcardPath = wildcard.map(RouteComponentCoding.encode).joined(separator: "/")
        lazy var wildcardValue = RouteComponentCoding.encode(wildcard.joined(separator: "/"))

        var path: [String] = []
        for part in targetPath {
            switch part {
            case .literal(let raw): path.append(raw)
            case .parameter(let name): path.append(capture(name))
            case .wildcard: if !wildcard.isEmpty { path.append(wildcardPath) }
            }
        }
        var query: [(name: String, value: String)] = targetQuery.map { item in
            let value =
                switch item.value {
                case .literal(let text): RouteComponentCoding.encode(text)
                case .parameter(let name): capture(name)
                case .wildcard: wildcardValue
                }
            return (RouteComponentCoding.encode(item.name), value)
        }
        let templateNames = Set(targetQuery.map(\.name))
        for item in url.queryItems where !templateNames.contains(item.name) {
            query.append((RouteComponentCoding.encode(item.name), RouteComponentCoding.encode(item.value)))
        }
        let fragment = targetFragment ?? url.fragment

        var bytes = targetPrefix.utf8.count + max(0, path.count - 1) + path.reduce(0) { $0 + $1.utf8.count }
        bytes += query.reduce(0) { $0 + 2 + $1.name.utf8.count + $1.value.utf8.count }
        bytes += fragment.map { 1 + $0.utf8.count } ?? 0
        guard bytes <= maximumLength else { return .tooLong(bytes: bytes) }

        var text = targetPrefix
        text.reserveCapacity(bytes)
        text += path.joined(separator: "/")
        for (index, item) in query.enumerated() {
            text += (index == 0 ? "?" : "&") + item.name + "=" + item.value
        }
        if let fragment { text += "#" + fragment }
        return .url(text)
    }

    /// The rule as `from → to`.
    public var description: String { "\(from) → \(to)" }

    /// Rules are equal when their source and template are.
    public static func == (lhs: RedirectRule, rhs: RedirectRule) -> Bool {
        lhs.from == rhs.from && lhs.to == rhs.to
    }

    /// Hashes the source and template.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(from)
        hasher.combine(to)
    }
}
