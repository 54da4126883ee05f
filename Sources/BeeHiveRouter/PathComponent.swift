import BeeHive

/// BHRouter's path components: a key that names an implementation type in URLs, with an optional handler.
///
/// A router with path components answers BHRouter's three URL forms, where each path component
/// is `<key>.<Service or target>[.<action or mode>]` and several components run in order:
///
/// | form | URL | what runs |
/// |---|---|---|
/// | call | `app://call.service/<key>.<Service>.<action>/…?params={…}` | the key's handler, or the action of the service resolved by name (``ActionHandling``) |
/// | register | `app://register.beehive/<key>.<Service>/…` | registers the key's type as the implementation of `<Service>` in the router's hive |
/// | register | `app://register.beehive/<key>/…` | declares the key's type as a module in the router's hive (BHRouter's `registerDynamicModule:`) |
/// | jump | `app://jump.vc.beehive/<key>.<Target>.<push or modal>/…?params={…}#push` | the key's handler (on Linux: launch a module's entry, FisherMan style); the mode is the component's own (`.push`, `.modal`), else the fragment's (`#modal`), else `push` |
///
/// Hosts and modes compare case-insensitively (`CALL.SERVICE.BEEHIVE`, `#Modal`), as BHRouter's do. As in BHRouter,
/// the fragment gives the mode of the components that do not name one, and a component's own mode wins over it.
///
/// Every component's key must have been added (``Router/addPathComponent(_:for:handler:)``,
/// ``Router/addPathComponent(for:handler:)``): unlike BHRouter, a key is never taken as a class name, so a URL
/// cannot make the router use a type the program did not name.
///
/// `params` is BHRouter's JSON query value keyed by path component: `{"<key>": {"<name>": <value>, …}, …}`. Each
/// component's parameters are the other query items, overridden by its own object in `params`.
///
/// ```swift
/// try router.addPathComponent("cart", for: CartService.self)
/// try router.open("app://call.service/cart.App.CartService.add?params=%7B%22cart%22:%7B%22sku%22:42%7D%7D")
/// ```
public struct PathComponent: Sendable {
    /// The key, the first part of a path component (`cart` in `cart.App.CartService.add`).
    public let key: String
    /// The module-qualified name of the type the key stands for.
    public let implementation: String
    /// Runs instead of the default behaviour of the call form, and for the jump form.
    public let handler: Handler?

    /// A path component's handler: receives the component's request, returns its result.
    public typealias Handler = @Sendable (PathComponentRequest) throws -> Any?
}

/// One path component of a BHRouter URL, as its handler receives it.
public struct PathComponentRequest: Sendable {
    /// The URL forms of BHRouter.
    public enum Form: String, Sendable, Hashable {
        /// `call.service`: call an action of a service.
        case call
        /// `register.beehive`: register the key's type as a service's implementation.
        case register
        /// `jump.vc.beehive`: open a target (on iOS a view controller; on Linux, typically a module's entry).
        case jump
    }

    /// The form of the URL.
    public let form: Form
    /// The component's key.
    public let key: String
    /// The module-qualified name of the key's type.
    public let implementation: String
    /// The service (call, register) or target (jump) the component names; empty for a register component that is
    /// only a key (a module).
    public let target: String
    /// The action (call) or the presentation mode (jump: the component's own `push` or `modal`, else the
    /// fragment's, else `push`, as in BHRouter); `nil` for register.
    public let action: String?
    /// The component's parameters: the URL's query items, overridden by the component's object in `params`, overridden
    /// by what the caller passed for the key to ``Router/open(_:parameters:userInfo:)``.
    public let parameters: RouteParameters
    /// The whole URL.
    public let url: String
}

/// What one path component of a BHRouter URL gave (BHRouter's `andThen(pathComponentKey, obj, returnValue)`).
public struct PathComponentResult {
    /// The component's key.
    public let key: String
    /// The service or target it named.
    public let target: String
    /// What its handler, action or registration returned.
    public let value: Any?
}
