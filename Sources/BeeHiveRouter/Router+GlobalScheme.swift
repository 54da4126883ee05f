import BeeHive

/// The scheme of BHRouter's global router; `nil` until set or loaded (then ``Router/defaultGlobalScheme``).
private let globalSchemeSetting = LockedValue<String?>(nil)

extension Router {
    /// BHRouter's global scheme when `BeeHive.plist` sets none: `com.alibaba.beehive`.
    public static let defaultGlobalScheme = "com.alibaba.beehive"

    /// The key of `BeeHive.plist` that names BHRouter's global scheme: `URLGlobalScheme`.
    public static let globalSchemeKey = "URLGlobalScheme"

    /// The scheme of BHRouter's global router (``globalSchemeRouter``): set with ``setGlobalScheme(_:)`` or read
    /// from `BeeHive.plist` by ``loadGlobalScheme(fromConfig:)``; ``defaultGlobalScheme`` otherwise.
    ///
    /// BHRouter falls back to the app's bundle identifier before `com.alibaba.beehive`; a Linux program has none.
    ///
    /// ```swift
    /// Router.globalScheme                    // "com.alibaba.beehive"
    /// Router.setGlobalScheme("Shop")
    /// Router.globalScheme                    // "shop"
    /// ```
    public static var globalScheme: String {
        globalSchemeSetting.withLock { $0 } ?? defaultGlobalScheme
    }

    /// BHRouter's `globalRouter`: the process-wide router for ``globalScheme``.
    ///
    /// ``global`` is another router: it accepts every scheme (MGJRouter's model). A BHRouter user who registers path
    /// components on `[BHRouter globalRouter]` registers them here.
    ///
    /// ```swift
    /// try Router.loadGlobalScheme(fromConfig: "Config/BeeHive.plist")   // URLGlobalScheme = shop
    /// try Router.globalSchemeRouter.addPathComponent("cart", for: CartService.self)
    /// try Router.globalSchemeRouter.open("shop://call.service.beehive/cart.App.CartService.count")
    /// ```
    public static var globalSchemeRouter: Router { forScheme(globalScheme) }

    /// Sets the scheme of BHRouter's global router.
    ///
    /// ```swift
    /// Router.setGlobalScheme("shop")         // what `beehive migrate` prints for URLGlobalScheme = shop
    /// try Router.globalSchemeRouter.open("shop://jump.vc.beehive/home.App.Home")
    /// ```
    ///
    /// - Parameter scheme: The scheme (compared case-insensitively, as every scheme), or `nil` to go back to
    ///   ``defaultGlobalScheme``.
    public static func setGlobalScheme(_ scheme: String?) {
        globalSchemeSetting.withLock { $0 = scheme?.lowercased() }
    }

    /// Reads BHRouter's global scheme from the `URLGlobalScheme` key of `BeeHive.plist` (XML or binary property
    /// list, or the same as JSON), and sets it.
    ///
    /// ```swift
    /// let scheme = try Router.loadGlobalScheme(fromConfig: "Config/BeeHive.plist")   // "shop", or the default
    /// ```
    ///
    /// - Parameter path: The file, usually the one `Hive.loadModules(from:)` reads.
    /// - Returns: The global scheme now in effect: the file's, or ``defaultGlobalScheme`` when the file has no
    ///   `URLGlobalScheme` (the setting is then reset to the default, as BHRouter would read it).
    /// - Throws: `HiveError` `fileNotFound` or `malformedFile` (not a property list or JSON, not a dictionary at
    ///   the root, or a value that is not a non-empty string); `HiveError` `malformedEntry` for a value that is no
    ///   URL scheme (an ASCII letter, then letters, digits, `+`, `-` or `.`). The setting is unchanged on error.
    @discardableResult
    public static func loadGlobalScheme(fromConfig path: String) throws(HiveError) -> String {
        let found = try ConfigurationFile.string(forKey: globalSchemeKey, inFile: path)
        if let found {
            guard (try? ParsedRouteURL(found + "://")) != nil else {
                throw HiveError(
                    .malformedEntry,
                    "expected \"\(globalSchemeKey)\" to be a URL scheme (a letter, then letters, digits, '+', '-' or "
                        + "'.'); found \"\(found)\"", source: .file(path))
            }
        }
        setGlobalScheme(found)
        return globalScheme
    }
}
