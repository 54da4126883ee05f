// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "BeeHive",
    products: [
        // The Swift API: services, modules, events, routing.
        .library(name: "BeeHive", targets: ["BeeHive"]),
        // The C annotation macros: `#include <beehive.h>` in any C target.
        .library(name: "CBeeHive", targets: ["CBeeHive"]),
        // The same Swift API as a shared library, for hosts that `dlopen` plugins built against it.
        .library(name: "BeeHiveDynamic", type: .dynamic, targets: ["BeeHive"]),
        // Modules as a swift-service-lifecycle Service.
        .library(name: "BeeHiveServiceLifecycle", targets: ["BeeHiveServiceLifecycle"]),
        .executable(name: "beehive-demo", targets: ["BeeHiveDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // MARK: C support
        .target(name: "CBeeHive", path: "CSupport/CBeeHive"),
        .systemLibrary(
            name: "CLibELF",
            path: "Sources/CLibELF",
            pkgConfig: "libelf",
            providers: [.apt(["libelf-dev"])]
        ),
        .target(name: "_BeeHiveScanner", dependencies: ["CLibELF"], path: "CSupport/_BeeHiveScanner"),

        // MARK: Swift
        .target(name: "_BeeHiveDiscovery", dependencies: ["_BeeHiveScanner"]),
        .target(
            name: "BeeHive",
            dependencies: ["_BeeHiveDiscovery", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "BeeHiveServiceLifecycle",
            dependencies: [
                "BeeHive", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "BeeHiveDemo", dependencies: ["BeeHive", "BeeHiveDemoServices"], path: "Examples/Demo/App"),
        .target(name: "BeeHiveDemoServices", dependencies: ["CBeeHive"], path: "Examples/Demo/Annotations"),

        // MARK: Tests
        .target(name: "BeeHiveTestAnnotations", dependencies: ["CBeeHive"], path: "Tests/Annotations"),
        .testTarget(name: "_BeeHiveDiscoveryTests", dependencies: ["_BeeHiveDiscovery"]),
        .testTarget(name: "BeeHiveTests", dependencies: ["BeeHive", "BeeHiveTestAnnotations"]),
        .testTarget(
            name: "BeeHiveServiceLifecycleTests",
            dependencies: [
                "BeeHiveServiceLifecycle", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
