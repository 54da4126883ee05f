// swift-tools-version:6.3
// The protocols the server and its plugins share: a package of its own with one dynamic product, so that the server
// and every plugin load one copy of them. It depends on BeeHiveDynamic for @BeeHiveAPI, which versions a protocol.
import PackageDescription

let package = Package(
    name: "PluginServerAPI",
    products: [.library(name: "PluginServerAPI", type: .dynamic, targets: ["PluginServerAPI"])],
    dependencies: [.package(name: "BeeHive", path: "../../..", traits: ["Macros"])],
    targets: [
        .target(name: "PluginServerAPI", dependencies: [.product(name: "BeeHiveDynamic", package: "BeeHive")])
    ]
)
