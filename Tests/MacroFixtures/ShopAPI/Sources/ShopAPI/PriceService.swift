import BeeHiveMacros

/// A versioned service API, shared by the host and its plugins as a shared library of its own.
@BeeHiveAPI("2.1.0")
public protocol PriceService: Sendable {
    func price(of item: String) -> Int
}
