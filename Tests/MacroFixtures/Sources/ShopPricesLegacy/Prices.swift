import BeeHiveMacros
import ShopAPI

// Stands for a plugin compiled against an older major version (1.4.0): refused. It writes what such a build writes: this module's own
// overload of the version function shadows the one ShopAPI declares, as the API module it was compiled against did.
func _beeHiveAPIVersion(_: (any ShopAPI.PriceService).Type) -> StaticString { "beehive-api:ShopAPI.PriceService@1.4.0" }

@BeeHiveService(ShopAPI.PriceService.self)
final class LegacyPrices: PriceService {
    init() {}
    func price(of item: String) -> Int { -1 }
}
