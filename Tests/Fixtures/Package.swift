// swift-tools-version:6.3
// Real binaries for BeeHive's tests: built by the tests (debug and release) and run as separate processes.
import PackageDescription

let package = Package(
    name: "BeeHiveFixtures",
    products: [
        .executable(name: "AnnotatedApp", targets: ["AnnotatedApp"]),
        .executable(name: "PluginHost", targets: ["PluginHost"]),
        .executable(name: "LifecycleApp", targets: ["LifecycleApp"]),
        .executable(name: "UnloadHost", targets: ["UnloadHost"]),
        // A host that plays a script of dlopen, dlclose, rescan and file changes (tests of plugins that come and go).
        .executable(name: "PluginLab", targets: ["PluginLab"]),
        // A plugin of C records only, so that dlclose really unloads it.
        .library(name: "CRecordsPlugin", type: .dynamic, targets: ["CRecordsPlugin"]),
        // The plugin, a shared library. It and the host link BeeHiveDynamic and PluginAPI (a package of
        // its own, with a dynamic product), so that both see one copy of each type.
        .library(name: "GreeterPlugin", type: .dynamic, targets: ["GreeterPlugin"]),
        // Two versions of a Swift plugin (services, a route and a module, named by C records) and a host that loads,
        // upgrades, retires and dlcloses them (tests of Swift plugins that come and go).
        .library(name: "HotGreeterV1", type: .dynamic, targets: ["HotGreeterV1"]),
        .library(name: "HotGreeterV2", type: .dynamic, targets: ["HotGreeterV2"]),
        .executable(name: "HotPluginHost", targets: ["HotPluginHost"]),
        // A plugin that links the static BeeHive product, so it carries a second copy (refused at load).
        .library(name: "DoubleBeeHivePlugin", type: .dynamic, targets: ["DoubleBeeHivePlugin"]),
    ],
    dependencies: [.package(name: "BeeHive", path: "../.."), .package(path: "PluginAPI")],
    targets: [
        // An executable whose services are annotated in a C target of two files.
        .target(name: "FixtureAnnotations", dependencies: [.product(name: "CBeeHive", package: "BeeHive")]),
        .executableTarget(
            name: "AnnotatedApp",
            dependencies: [
                "FixtureAnnotations", .product(name: "BeeHive", package: "BeeHive"),
                .product(name: "BeeHiveModules", package: "BeeHive"),
                .product(name: "BeeHiveRouter", package: "BeeHive"),
            ]
        ),

        // Modules driven by signals.
        .target(name: "LifecycleAnnotations", dependencies: [.product(name: "CBeeHive", package: "BeeHive")]),
        .executableTarget(
            name: "LifecycleApp",
            dependencies: [
                "LifecycleAnnotations", .product(name: "BeeHive", package: "BeeHive"),
                .product(name: "BeeHiveModules", package: "BeeHive"),
            ]
        ),

        // A host that opens and closes a plugin of records.
        .target(name: "CRecordsPlugin", dependencies: [.product(name: "CBeeHive", package: "BeeHive")]),
        .executableTarget(name: "UnloadHost", dependencies: [.product(name: "BeeHive", package: "BeeHive")]),
        .executableTarget(
            name: "PluginLab",
            dependencies: [
                .product(name: "BeeHive", package: "BeeHive"), .product(name: "BeeHiveRouter", package: "BeeHive"),
            ]
        ),

        // A host that dlopens a plugin at run time.
        .target(name: "GreeterPluginAnnotations", dependencies: [.product(name: "CBeeHive", package: "BeeHive")]),
        .target(
            name: "GreeterPlugin",
            dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"), "GreeterPluginAnnotations",
                .product(name: "BeeHiveDynamic", package: "BeeHive"),
            ]
        ),
        .target(name: "HotGreeterV1Records", dependencies: [.product(name: "CBeeHive", package: "BeeHive")]),
        .target(name: "HotGreeterV2Records", dependencies: [.product(name: "CBeeHive", package: "BeeHive")]),
        .target(
            name: "HotGreeterV1",
            dependencies: [
                "HotGreeterV1Records", .product(name: "PluginAPI", package: "PluginAPI"),
                .product(name: "BeeHiveDynamic", package: "BeeHive"),
            ]
        ),
        .target(
            name: "HotGreeterV2",
            dependencies: [
                "HotGreeterV2Records", .product(name: "PluginAPI", package: "PluginAPI"),
                .product(name: "BeeHiveDynamic", package: "BeeHive"),
            ]
        ),
        .target(name: "DoubleBeeHiveRecords", dependencies: [.product(name: "CBeeHive", package: "BeeHive")]),
        .target(
            name: "DoubleBeeHivePlugin",
            dependencies: [
                "DoubleBeeHiveRecords", .product(name: "PluginAPI", package: "PluginAPI"),
                .product(name: "BeeHive", package: "BeeHive"),
            ]
        ),
        .executableTarget(
            name: "HotPluginHost",
            dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"), .product(name: "BeeHiveDynamic", package: "BeeHive"),
            ]
        ),
        .executableTarget(
            name: "PluginHost",
            dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"), .product(name: "BeeHiveDynamic", package: "BeeHive"),
            ]
        ),
    ]
)
