import BeeHiveMacros
import ShopAPI

// Stands for a plugin compiled against a newer minor version (2.3.0) than the host's 2.1: refused. It writes what such a build writes: this module's own
// overload of the version function shadows the one ShopAPI declares, as the API module it was compiled against did.
func _beeHiveAPIVersion(_: (any ShopAPI.PriceService).Type) -> StaticString { "beehive-api:ShopAPI.PriceService@2.3.0" }

@BeeHiveService(ShopAPI.PriceService.self)
final class NewerPrices: PriceService {
    init() {}
    func price(of item: String) -> Int { -1 }
}
