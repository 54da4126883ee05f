import BeeHiveMacros
import PluginServerAPI

// Stands for a price plugin compiled against PluginServerAPI 1.3, before the protocol's 2.0: it writes what such a
// build writes, since this module's own overload of the version function shadows the one PluginServerAPI declares, as
// the API module it was compiled against did. The server (serving 2.0.0) refuses it before it joins.
func _beeHiveAPIVersion(_: (any PluginServerAPI.PriceService).Type) -> StaticString {
    "beehive-api:PluginServerAPI.PriceService@1.3.0"
}

/// Old prices, at a rank that would serve first if it joined.
@BeeHiveService(PluginServerAPI.PriceService.self, rank: 100, properties: ["tier": "legacy"])
public struct LegacyPrices: PriceService {
    public init() {}
    public func price(of item: String) -> String { "\(item): 99 (legacy)" }
}
