// Must not compile: StockService is declared in module ShopAPI, and a service named with one component is taken as
// this module's (App), so the record would name App.StockService, which does not exist. Type-checked by
// MacroCompileTimeCheckTests (issue 34): BeeHive's error ("@BeeHiveService(StockService.self): the service
// 'StockService' written here is not 'App.StockService', …; write it with the module that declares it,
// '<Module>.StockService.self'") beside the compiler's ("did you mean module 'ShopAPI'?").
import BeeHiveMacros
import ShopAPI

// The annotation is on line 10.
@BeeHiveService(StockService.self)
struct Shelf: StockService {
    func count(of item: String) -> Int { 1 }
}
