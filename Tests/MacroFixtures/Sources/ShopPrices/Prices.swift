import BeeHiveMacros
import ShopAPI

/// Built against the API the host loads (2.1.0): joins.
@BeeHiveService(ShopAPI.PriceService.self)
final class CurrentPrices: PriceService {
    init() {}
    func price(of item: String) -> Int { item.count * 10 }
}
