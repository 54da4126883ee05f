// swift-tools-version:6.3
// A modular program: five modules in targets of their own, each announcing itself (and its services): four with
// BeeHive's C macros in a C target beside it, one (Settings) with the Swift macros alone. No target lists the
// others; the app links them.
import PackageDescription

let beehive = Target.Dependency.product(name: "BeeHive", package: "BeeHive")
let modules = Target.Dependency.product(name: "BeeHiveModules", package: "BeeHive")
let macros = Target.Dependency.product(name: "CBeeHive", package: "BeeHive")
let swiftMacros = Target.Dependency.product(name: "BeeHiveMacros", package: "BeeHive")

let package = Package(
    name: "ModularApp",
    // The trait Macros brings swift-syntax, for the Settings module's Swift annotations. `name:` lets the targets say
    // `package: "BeeHive"` whatever the clone's folder is called (without it, the package is known by that name).
    dependencies: [.package(name: "BeeHive", path: "../..", traits: ["Macros"])],
    targets: [
        // The protocols modules talk through.
        .target(name: "AppServices"),

        .target(name: "Account", dependencies: ["AppServices", "AccountAnnotations", beehive, modules]),
        .target(name: "AccountAnnotations", dependencies: [macros]),
        .target(name: "Network", dependencies: ["AppServices", "NetworkAnnotations", beehive, modules]),
        .target(name: "NetworkAnnotations", dependencies: [macros]),
        .target(name: "Home", dependencies: ["AppServices", "HomeAnnotations", beehive, modules]),
        .target(name: "HomeAnnotations", dependencies: [macros]),
        .target(name: "Analytics", dependencies: ["AppServices", "AnalyticsAnnotations", beehive, modules]),
        .target(name: "AnalyticsAnnotations", dependencies: [macros]),
        // Annotated in Swift: no C target.
        .target(name: "Settings", dependencies: ["AppServices", swiftMacros, modules]),

        .executableTarget(
            name: "ModularApp", dependencies: ["Account", "Network", "Home", "Analytics", "Settings", beehive, modules]),
    ]
)
