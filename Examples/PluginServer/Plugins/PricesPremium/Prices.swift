import BeeHiveMacros
import PluginServerAPI

/// The premium prices: rank 10, so that they serve while this plugin is loaded, whichever was loaded first.
@BeeHiveService(PluginServerAPI.PriceService.self, rank: 10, properties: ["tier": "premium"])
public struct PremiumPrices: PriceService {
    public init() {}
    public func price(of item: String) -> String { "\(item): 8 (premium)" }
}
