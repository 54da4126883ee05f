import BeeHiveMacros

/// A service a feature plugin provides: the server's routes of that plugin answer with it.
public protocol Greeting: Sendable {
    /// The greeting for `name`; it says which version of the plugin answered.
    func greet(_ name: String) -> String
}

/// A service that several plugins offer at once, with different ranks: the server's `GET /price/<item>` answers
/// with the highest-ranked one that is loaded, and `GET /prices/<item>` with every one, highest first.
///
/// Its API is versioned: a plugin built against another major version, or a newer minor version, is refused before
/// it joins (`PricesLegacy`, built for 1.3, is).
@BeeHiveAPI("2.0.0")
public protocol PriceService: Sendable {
    /// The price of `item`; it says which plugin answered.
    func price(of item: String) -> String
}
