// Must not compile: a protocol composition is no type a record can name. Type-checked by MacroCompileTimeCheckTests
// (issue 34): the macro's own error, naming both protocols and the fix.
import BeeHiveMacros
import ShopAPI

@BeeHiveService((ShopAPI.StockService & ShopAPI.PriceService).self)
struct Till: StockService, PriceService {
    func count(of item: String) -> Int { 1 }
    func price(of item: String) -> Int { 2 }
}
