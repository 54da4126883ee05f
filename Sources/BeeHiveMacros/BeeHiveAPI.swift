#if Macros
/// Declares the version of a service protocol's API, so that plugins built against another version are refused
/// before they join.
///
/// Every `@BeeHiveService` of the protocol, wherever it is compiled (a plugin, another package), then records the
/// version it was compiled against: `ServiceRegistration.apiVersion`, and in the plugin's file for
/// `beehive check`. A process serves the version of the API module it loaded: a host serving `2.1.0` accepts
/// implementations built against `2.0` through `2.1.x` (semantic versioning: the same major version, a minor version
/// no newer) and refuses others with `incompatibleAPIVersion` (a plugin whole, before it joins: `PluginError.refused`).
///
/// Write it on a protocol at file scope (its clients find the version by a function declared beside it). Raise the
/// minor version when the API gains requirements with defaults or new types, the major version when it changes or
/// removes any.
///
/// ```swift
/// // Package ShopAPI, shared by the host and its plugins (a shared library):
/// import BeeHiveMacros
///
/// @BeeHiveAPI("2.1.0")
/// public protocol PriceService: Sendable {
///     func price(of item: String) -> Int
/// }
/// ```
///
/// - Parameter version: The API's version, a string literal `MAJOR.MINOR` or `MAJOR.MINOR.PATCH`.
@attached(peer, names: named(_beeHiveAPIVersion))
public macro BeeHiveAPI(_ version: String) = #externalMacro(module: "_BeeHiveMacrosPlugin", type: "APIMacro")
#endif
