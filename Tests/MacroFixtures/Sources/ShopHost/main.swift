// Loads each plugin named on the command line with plugins.load, in order, and prints what happened to each; then
// which implementation serves the price service, and the version it was built against.
import BeeHive
import ShopAPI

for path in CommandLine.arguments.dropFirst() {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    do {
        let plugin = try Hive.shared.plugins.load(path: path)
        print("\(name)=loaded:\(plugin.registered.services)")
    } catch {
        let codes = error.problems.map { "\($0.error.code)" }.joined(separator: ",")
        print("\(name)=\(error.code):\(codes)")
        for problem in error.problems { print("problem=\(problem.error.message)") }
    }
}
let registration = Hive.shared.registration(for: "ShopAPI.PriceService")
print("implementation=\(registration?.implementation ?? "none")")
print("apiVersion=\(registration?.apiVersion ?? "none")")
print("price=\((try? Hive.shared.createService(PriceService.self).price(of: "tea")) ?? -1)")
print("priceByKey=\((try? Hive.shared.createService(PriceServiceKey.self).price(of: "tea")) ?? -1)")
let warnings = Hive.shared.diagnostics.filter { $0.error.code == .unversionedImplementation }
print("unversioned=\(warnings.count)")
