import BeeHiveMacros
import ShopAPI

// Stands for a plugin compiled against no version (built before the protocol declared one): joins, with a warning. It writes what such a build writes: this module's own
// overload of the version function shadows the one ShopAPI declares, as the API module it was compiled against did.
func _beeHiveAPIVersion(_: (any ShopAPI.PriceService).Type) -> StaticString { "" }

@BeeHiveService(ShopAPI.PriceService.self, name: "unversioned")
final class UnversionedPrices: PriceService {
    init() {}
    func price(of item: String) -> Int { -1 }
}
