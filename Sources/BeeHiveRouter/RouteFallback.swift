import BeeHive

/// What a router's fallback handler receives for a URL no route handles, for example to open a web page
/// instead (seed 002's H5 fallback for app versions that lack a native screen).
///
/// ```swift
/// router.setFallback { fallback in
///     WebScreen(url: "https://m.example.com/open?url=" + fallback.url)
/// }
/// ```
public struct RouteFallback: Sendable {
    /// The URL after redirects (may have another scheme, such as `https`, when a redirect points to the web).
    public let url: String

    /// The URL as passed to the router.
    public let originalURL: String

    /// Why no route handled it: code ``RouterError/Code/routeNotFound``, ``RouterError/Code/unknownScheme`` or
    /// ``RouterError/Code/serviceNotFound``.
    public let reason: RouterError

    /// The user info passed at open time.
    public let userInfo: [String: any Sendable]
}
