import BeeHive

/// A BeeHive service call URL, `scheme://call.service/<Service>.<action>?k=v`, taken apart.
///
/// The service name is everything before the last `.` of the component after the host, so qualified names
/// work (`app://call.service/App.CartService.add?item=3` calls `add` on `App.CartService`).
struct ServiceCall: Sendable {
    var service: String
    var action: String
    var parameters: RouteParameters

    /// Returns `nil` when the URL's host is not the service call host.
    ///
    /// - Throws: ``RouterError/Code/malformedURL`` when the host matches but the rest is not `<Service>.<action>`.
    init?(_ url: ParsedRouteURL, host: String) throws(RouterError) {
        // Hosts compare case-insensitively (RFC 3986; BHRouter lower-cases them too).
        guard let first = url.segments.first, first.lowercased() == host.lowercased() else { return nil }
        let expected = "expected '\(url.scheme ?? "scheme")://\(host)/<Service>.<action>?k=v'"
        guard url.segments.count == 2 else {
            throw RouterError(
                .malformedURL,
                "service call '\(url.original)': \(expected), found \(url.segments.count - 1) path components"
            )
        }
        let name = url.segments[1]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else {
            throw RouterError(.malformedURL, "service call '\(url.original)': \(expected), found '\(name)'")
        }
        service = String(name[..<dot])
        action = String(name[name.index(after: dot)...])
        parameters = RouteParameters(
            url.queryDictionary,
            origin: "'\(url.original)' (service '\(service)', action '\(action)')"
        )
    }
}
