// swift-tools-version:6.3
// The startup cost of a services-only program (10 annotated services, each resolved once) built against a
// BeeHive checkout: BEEHIVE_PATH selects it (default: this repository). Run measure.sh; see Docs/benchmarks.md.
import Foundation
import PackageDescription

let beehivePath = ProcessInfo.processInfo.environment["BEEHIVE_PATH"] ?? "../.."

let package = Package(
    name: "svc-probe",
    products: [.executable(name: "probe", targets: ["probe"])],
    dependencies: [.package(name: "BeeHive", path: beehivePath)],
    targets: [
        .target(name: "Services", dependencies: [.product(name: "BeeHive", package: "BeeHive")]),
        .target(name: "Annotations", dependencies: [.product(name: "CBeeHive", package: "BeeHive")]),
        .executableTarget(
            name: "probe",
            dependencies: ["Services", "Annotations", .product(name: "BeeHive", package: "BeeHive")]
        ),
    ]
)
