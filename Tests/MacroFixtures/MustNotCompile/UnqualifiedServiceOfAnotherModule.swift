// Must not compile: StockService is declared in module ShopAPI, and a service named with one component is taken as
// this module's (App), so the record would name App.StockService, which does not exist. Type-checked by
// MacroCompileTimeCheckTests (issue 34): the compiler's error ("'StockService' is not imported through module 'App'",
// "did you mean module 'ShopAPI'?") comes with BeeHive's words on the line above it in the expansion, naming the fix
// ("write it with that module's name, '<Module>.StockService.self'").
import BeeHiveMacros
import ShopAPI

// The annotation is on line 10.
@BeeHiveService(StockService.self)
struct Shelf: StockService {
    func count(of item: String) -> Int { 1 }
}
