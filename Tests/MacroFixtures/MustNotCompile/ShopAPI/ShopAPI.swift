// Module ShopAPI of the must-not-compile fixtures: protocols declared in a module other than the annotated type's.
// MacroCompileTimeCheckTests emits it as a module (`swiftc -emit-module`) before type-checking a fixture that
// imports it.
public protocol StockService: Sendable {
    func count(of item: String) -> Int
}

public protocol PriceService: Sendable {
    func price(of item: String) -> Int
}

public protocol Box {}
public struct GenericBox<Element>: Box {}
