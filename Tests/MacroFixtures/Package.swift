// swift-tools-version:6.3
// Real binaries for the Swift macros' tests: built by the tests (debug and release) and run as separate processes.
// Every service, module and route here is annotated in Swift (BeeHiveMacros), but for one C record in MacroApp.
//
// The tests build it with the macro plugin their own build made (BEEHIVE_MACRO_PLUGIN, its path; with `-Xswiftc
// -DMacros` and `-load-plugin-executable`), so that swift-syntax is not built twice more, once per configuration;
// `swift build` by hand enables the BeeHive package's trait `Macros` and builds the plugin here.
import PackageDescription

let beehiveTraits: Set<Package.Dependency.Trait> = Context.environment["BEEHIVE_MACRO_PLUGIN"] == nil ? ["Macros"] : []

/// Plugins of ShopAPI's price service: built against the API as it is, and three that stand for builds against
/// other versions of it.
let shopPlugins = ["ShopPrices", "ShopPricesLegacy", "ShopPricesNewer", "ShopPricesUnversioned"]
let dynamicBeeHive: Target.Dependency = .product(name: "BeeHiveDynamic", package: "BeeHive")
let shopAPI: Target.Dependency = .product(name: "ShopAPI", package: "ShopAPI")

let package = Package(
    name: "BeeHiveMacroFixtures",
    products: [
        .executable(name: "MacroApp", targets: ["MacroApp"]),
        .executable(name: "MacroPluginHost", targets: ["MacroPluginHost"]),
        // A plugin annotated in Swift only; host and plugin share BeeHiveDynamic (with the macros) and PluginAPI.
        .library(name: "MacroPlugin", type: .dynamic, targets: ["MacroPlugin"]),
        // A host of a versioned API (ShopAPI, @BeeHiveAPI), and plugins built against several versions of it.
        .executable(name: "ShopHost", targets: ["ShopHost"]),
    ] + shopPlugins.map { .library(name: $0, type: .dynamic, targets: [$0]) },
    dependencies: [
        .package(name: "BeeHive", path: "../..", traits: beehiveTraits),
        .package(path: "../Fixtures/PluginAPI"),
        .package(path: "ShopAPI"),
    ],
    targets: [
        // A second module whose services are annotated in Swift.
        .target(name: "MacroServices", dependencies: [.product(name: "BeeHiveMacros", package: "BeeHive")]),
        // One C record in the same image as Swift records.
        .target(name: "MixedCAnnotations", dependencies: [.product(name: "CBeeHive", package: "BeeHive")]),
        .executableTarget(
            name: "MacroApp",
            dependencies: [
                "MacroServices", "MixedCAnnotations", .product(name: "BeeHiveMacros", package: "BeeHive"),
                .product(name: "BeeHiveModules", package: "BeeHive"),
                .product(name: "BeeHiveRouter", package: "BeeHive"),
            ]
        ),
        // The macros come with BeeHiveDynamic: a plugin that also named the static BeeHiveMacros product would carry
        // a copy of BeeHive of its own.
        .target(
            name: "MacroPlugin",
            dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"), .product(name: "BeeHiveDynamic", package: "BeeHive"),
            ]
        ),
        .executableTarget(
            name: "MacroPluginHost",
            dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"), .product(name: "BeeHiveDynamic", package: "BeeHive"),
            ]
        ),
        .executableTarget(name: "ShopHost", dependencies: [shopAPI, dynamicBeeHive]),
    ] + shopPlugins.map { .target(name: $0, dependencies: [shopAPI, dynamicBeeHive]) }
)
