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

    /// Builds the redirected URL for a match of ``from``.
    func rewrite(_ url: ParsedRouteURL, captures: [String: String], wildcard: [String]) -> String {
        func value(_ part: TemplatePart) -> String {
            switch part {
            case .literal(let text): text
            case .parameter(let name): captures[name] ?? ""
            case .wildcard: wildcard.joined(separator: "/")
            }
        }
        var components: [String] = []
        for part in targetPath {
            switch part {
            case .literal(let raw): components.append(raw)
            case .parameter(let name): components.append(RouteComponentCoding.encode(captures[name] ?? ""))
            case .wildcard: components.append(contentsOf: wildcard.map(RouteComponentCoding.encode))
            }
        }
        var text = targetPrefix + components.joined(separator: "/")
        var items = targetQuery.map { ($0.name, value($0.value)) }
        let templateNames = Set(items.map(\.0))
        items += url.queryItems.filter { !templateNames.contains($0.name) }.map { ($0.name, $0.value) }
        if !items.isEmpty {
            text += "?"
            text += items.map { RouteComponentCoding.encode($0.0) + "=" + RouteComponentCoding.encode($0.1) }
                .joined(separator: "&")
        }
        if let fragment = targetFragment ?? url.fragment {
            text += "#" + fragment
        }
        return text
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
