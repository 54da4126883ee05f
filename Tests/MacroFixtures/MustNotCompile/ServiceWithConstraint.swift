// Must not compile: a composition of a service and a constraint is no type a record can name. Type-checked by
// MacroCompileTimeCheckTests (issue 34): the macro's own error, naming the protocol, with a fix-it that writes it.
import BeeHiveMacros
import ShopAPI

@BeeHiveService((any ShopAPI.StockService & Sendable).self)
struct Counter: StockService {
    func count(of item: String) -> Int { 1 }
}
