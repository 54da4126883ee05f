import BeeHiveMacros
import PluginServerAPI

/// The standard prices: rank 0, so that any plugin of a higher rank serves before it, and it serves again when
/// that one leaves.
@BeeHiveService(PluginServerAPI.PriceService.self, properties: ["tier": "standard"])
public struct StandardPrices: PriceService {
    public init() {}
    public func price(of item: String) -> String { "\(item): 10 (standard)" }
}
