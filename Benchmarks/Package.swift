// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "BeeHiveBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "BeeHive", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/Swinject/Swinject", from: "2.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "Registration",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "BeeHive", package: "BeeHive"),
                .product(name: "Swinject", package: "Swinject"),
            ],
            path: "Benchmarks/Registration",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
