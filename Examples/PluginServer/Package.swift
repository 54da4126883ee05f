// swift-tools-version:6.3
// An HTTP server (Hummingbird 2) whose features are Swift plugins annotated with BeeHive's Swift macros: each
// brings services and routes, served through BeeHive's router behind one catch-all Hummingbird route, and upgraded
// from a new .so by an admin request or SIGHUP while requests are served. Run-load-test.sh drives it under load.
import PackageDescription

/// A plugin's target, in `Plugins/<name>`: it links BeeHiveDynamic and the API, the server's copies at run time.
func plugin(_ name: String) -> Target {
    .target(
        name: name,
        dependencies: [
            .product(name: "BeeHiveDynamic", package: "BeeHive"), .product(name: "PluginServerAPI", package: "API"),
        ],
        path: "Plugins/\(name)"
    )
}

let package = Package(
    name: "PluginServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "PluginServer", targets: ["PluginServer"]),
        // Two versions of the "hello" feature: plugins, loaded by path (they link BeeHiveDynamic and the API, the
        // server's copies at run time).
        .library(name: "HelloV1", type: .dynamic, targets: ["HelloV1"]),
        .library(name: "HelloV2", type: .dynamic, targets: ["HelloV2"]),
        // Two plugins that offer one service at different ranks: the higher serves, the lower when it leaves.
        .library(name: "PricesStandard", type: .dynamic, targets: ["PricesStandard"]),
        .library(name: "PricesPremium", type: .dynamic, targets: ["PricesPremium"]),
        // A price plugin built for an older major version of the API (1.3; the server serves 2.0): refused.
        .library(name: "PricesLegacy", type: .dynamic, targets: ["PricesLegacy"]),
    ],
    dependencies: [
        // `name:` lets the targets say `package: "BeeHive"` whatever the clone's folder is called.
        .package(name: "BeeHive", path: "../..", traits: ["Macros"]),
        .package(path: "API"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "PluginServer",
            dependencies: [
                .product(name: "BeeHiveDynamic", package: "BeeHive"),
                .product(name: "PluginServerAPI", package: "API"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ] + ["HelloV1", "HelloV2", "PricesStandard", "PricesPremium", "PricesLegacy"].map(plugin)
)
