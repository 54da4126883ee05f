import BeeHiveMacros

/// A versioned service API, shared by the host and its plugins as a shared library of its own; with a key, under which
/// the plugins' implementations register.
@BeeHiveAPI("2.1.0")
@BeeHiveServiceKey
public protocol PriceService: Sendable {
    func price(of item: String) -> Int
}
