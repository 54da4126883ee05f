// swift-tools-version:6.3
// A versioned service API (@BeeHiveAPI) as a shared library of its own, which ShopHost and its plugins both load.
import PackageDescription

let beehiveTraits: Set<Package.Dependency.Trait> = Context.environment["BEEHIVE_MACRO_PLUGIN"] == nil ? ["Macros"] : []

let package = Package(
    name: "ShopAPI",
    products: [.library(name: "ShopAPI", type: .dynamic, targets: ["ShopAPI"])],
    dependencies: [.package(name: "BeeHive", path: "../../..", traits: beehiveTraits)],
    targets: [
        .target(name: "ShopAPI", dependencies: [.product(name: "BeeHiveDynamic", package: "BeeHive")])
    ]
)
