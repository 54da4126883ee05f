// Must not compile: a specialised generic type is no type a record can name. Type-checked by
// MacroCompileTimeCheckTests (issue 34): the macro's own error, naming the type and the fix.
import BeeHiveMacros
import ShopAPI

@BeeHiveService(ShopAPI.GenericBox<Int>.self)
struct Crate: Box {}
