// swift-tools-version:6.3
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "BeeHive",
    products: [
        // The core: the hive, registration from annotation records, files and code, services, diagnostics.
        .library(name: "BeeHive", targets: ["BeeHive"]),
        // Modules, their lifecycle and events, context, config, Linux system events, time profiler, watchdog.
        .library(name: "BeeHiveModules", targets: ["BeeHiveModules"]),
        // The URL router: patterns, redirects, URL generation, service-call URLs, annotated routes.
        .library(name: "BeeHiveRouter", targets: ["BeeHiveRouter"]),
        // The target-action mediator (CTMediator's model).
        .library(name: "BeeHiveMediator", targets: ["BeeHiveMediator"]),
        // For tests of code that uses BeeHive: hives of their own, and the log lines they write.
        .library(name: "BeeHiveTesting", targets: ["BeeHiveTesting"]),
        // The C annotation macros: `#include <beehive.h>` in any C target.
        .library(name: "CBeeHive", targets: ["CBeeHive"]),
        // Every Swift product above as one shared library, for hosts that `dlopen` plugins built against it, and for
        // the plugins: it holds the Swift macros' declarations too (`import BeeHiveMacros`; the macros expand with
        // the trait `Macros`), so that a plugin annotated with them links no copy of BeeHive of its own.
        .library(
            name: "BeeHiveDynamic", type: .dynamic,
            targets: ["BeeHive", "BeeHiveModules", "BeeHiveRouter", "BeeHiveMediator", "BeeHiveMacros"]
        ),
        // Modules as a swift-service-lifecycle Service.
        .library(name: "BeeHiveServiceLifecycle", targets: ["BeeHiveServiceLifecycle"]),
        // The Swift macros: `@BeeHiveService`, `@BeeHiveMod`, `@BeeHiveRoute`. Needs the trait `Macros`, which
        // brings swift-syntax; without it, swift-syntax is neither cloned, pinned nor built. For programs linked
        // statically; a plugin (and its host) takes the macros from `BeeHiveDynamic` instead, never from both.
        .library(name: "BeeHiveMacros", targets: ["BeeHiveMacros"]),
        .executable(name: "beehive-demo", targets: ["BeeHiveDemo"]),
        // The command-line tool: inspect and check the records of binaries, migrate BeeHive plists.
        .executable(name: "beehive", targets: ["BeeHiveCommand"]),
    ],
    traits: [
        .trait(
            name: "Macros",
            description: "The BeeHiveMacros product's macros (@BeeHiveService, @BeeHiveMod, @BeeHiveRoute); "
                + "needs swift-syntax"
        )
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // Only with the trait `Macros` (every use below is conditional on it).
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.0"..<"604.0.0"),
    ],
    targets: [
        // MARK: C support
        // The record format's constants (section names, the note, typed records, limits) and the one note parser:
        // header-only, included by beehive.h, the scanner and the tool's reader, and read by Swift.
        .target(name: "_BeeHiveFormat", path: "CSupport/_BeeHiveFormat"),
        .target(name: "CBeeHive", dependencies: ["_BeeHiveFormat"], path: "CSupport/CBeeHive"),
        .systemLibrary(
            name: "CLibELF",
            path: "Sources/CLibELF",
            pkgConfig: "libelf",
            providers: [.apt(["libelf-dev"])]
        ),
        // Reads section headers itself (pread, bounded): programs do not load libelf and libz (Docs/Design.md).
        // Its entry for the fuzzers (Fuzzing/) is left out: the Fuzz package compiles it, no program links it.
        .target(
            name: "_BeeHiveScanner", dependencies: ["_BeeHiveFormat"], path: "CSupport/_BeeHiveScanner",
            exclude: ["Fuzzing"]),
        // The room for the Swift runtime: every read of its layouts (metadata sections, context and conformance
        // descriptors, existentials), each pointer checked against the image's readable segments (Docs/Design.md).
        .target(name: "_BeeHiveRuntime", path: "CSupport/_BeeHiveRuntime"),
        // Reads record sections from files on disk; linked by the beehive tool only, never into programs.
        .target(
            name: "_BeeHiveInspect", dependencies: ["_BeeHiveFormat", "CLibELF"], path: "CSupport/_BeeHiveInspect"),
        // Unix signals through a self-pipe, for BeeHiveModules' system events.
        .target(name: "_BeeHiveSignals", path: "CSupport/_BeeHiveSignals"),
        // The core's atomics, inlined into Swift: LockedValue's lock (a futex word), flags, relaxed words.
        .target(name: "_BeeHiveAtomics", path: "CSupport/_BeeHiveAtomics"),

        // MARK: Swift
        // The file formats BeeHive reads: JSON (records and files), XML and binary property lists.
        .target(name: "_BeeHiveFileFormats"),
        .target(name: "_BeeHiveDiscovery", dependencies: ["_BeeHiveFormat", "_BeeHiveFileFormats", "_BeeHiveScanner"]),
        .target(
            name: "BeeHive",
            dependencies: [
                "_BeeHiveDiscovery", "_BeeHiveFileFormats", "_BeeHiveAtomics", "_BeeHiveRuntime",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "BeeHiveModules",
            dependencies: [
                "BeeHive", "_BeeHiveSignals", .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(name: "BeeHiveRouter", dependencies: ["BeeHive", "_BeeHiveFileFormats"]),
        .target(name: "BeeHiveMediator", dependencies: ["BeeHive", "BeeHiveRouter"]),
        .target(name: "BeeHiveTesting", dependencies: ["BeeHive", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "BeeHiveServiceLifecycle",
            dependencies: [
                "BeeHiveModules", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "BeeHiveDemo", dependencies: ["BeeHive", "BeeHiveModules", "BeeHiveDemoServices"],
            path: "Examples/Demo/App"),
        .target(name: "BeeHiveDemoServices", dependencies: ["CBeeHive"], path: "Examples/Demo/Annotations"),
        .executableTarget(
            name: "BeeHiveCommand",
            dependencies: [
                "BeeHive", "_BeeHiveDiscovery", "_BeeHiveFileFormats", "_BeeHiveInspect",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/beehive"
        ),

        // MARK: Swift macros (trait Macros)
        .macro(
            name: "_BeeHiveMacrosPlugin",
            dependencies: ["SwiftSyntax", "SwiftSyntaxMacros", "SwiftDiagnostics", "SwiftCompilerPlugin"].map {
                .product(name: $0, package: "swift-syntax", condition: .when(traits: ["Macros"]))
            }
        ),
        .target(
            name: "BeeHiveMacros",
            dependencies: ["BeeHive", .target(name: "_BeeHiveMacrosPlugin", condition: .when(traits: ["Macros"]))]
        ),

        // MARK: Tests
        .target(name: "BeeHiveTestAnnotations", dependencies: ["CBeeHive"], path: "Tests/Annotations"),
        // Callgrind's client requests (a dump per workload), for the complexity tests' child process.
        .target(name: "BeeHiveCallgrindRequests", path: "Tests/CallgrindRequests"),
        .testTarget(name: "_BeeHiveDiscoveryTests", dependencies: ["_BeeHiveDiscovery"]),
        // Runs programs, builds the fixture packages, and holds the lock of tests that load images into the test
        // process (every test target runs in one process).
        .target(name: "BeeHiveTestSupport", path: "Tests/Support"),
        // Unit tests: in process, seconds (Scripts/test.sh --unit).
        .testTarget(
            name: "BeeHiveTests",
            dependencies: [
                "BeeHive", "BeeHiveModules", "BeeHiveRouter", "BeeHiveMediator", "BeeHiveTesting",
                "BeeHiveTestAnnotations", "BeeHiveTestSupport", "_BeeHiveFileFormats", "BeeHiveCallgrindRequests",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Tests that build packages or binaries (Tests/Fixtures, Tests/MacroFixtures, compilers, linkers) and run
        // them: minutes.
        .testTarget(
            name: "BeeHiveIntegrationTests",
            dependencies: ["BeeHive", "BeeHiveModules", "BeeHiveRouter", "BeeHiveTestSupport"]
        ),
        .testTarget(
            name: "BeeHiveMacrosTests",
            dependencies: [.target(name: "_BeeHiveMacrosPlugin", condition: .when(traits: ["Macros"]))]
                + ["SwiftSyntaxMacrosGenericTestSupport", "SwiftSyntaxMacroExpansion", "SwiftParser"].map {
                    .product(name: $0, package: "swift-syntax", condition: .when(traits: ["Macros"]))
                }
        ),
        // Runs the built beehive tool on binaries it builds (needs no module of the package; the fixture packages'
        // builds are BeeHiveTestSupport's, shared with the integration tests).
        .testTarget(name: "BeeHiveCommandTests", dependencies: ["BeeHiveTestSupport"]),
        .testTarget(
            name: "BeeHiveServiceLifecycleTests",
            dependencies: [
                "BeeHiveServiceLifecycle", "BeeHiveModules",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)

// The DocC plugin only for the documentation (Scripts/docs.sh sets BEEHIVE_DOCS=1): otherwise neither this package's
// builds nor those of packages that depend on it clone and build it. SwiftPM evaluates the manifest again when the
// environment changes.
if Context.environment["BEEHIVE_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

// The ThreadSanitizer stages of Scripts/test.sh (BEEHIVE_TEST_SCOPE=tsan) run suites of BeeHiveTests only, so their
// build (a scratch folder of its own) leaves out what no such suite links: the tool and its argument parser, the demo,
// the ServiceLifecycle integration and its packages, the macros, and the other test targets; and it compiles only
// the files of BeeHiveTests that hold those suites (test.sh's tsan_filter) or what they use, under a third of it.
// A file added to BeeHiveTests is compiled for them too until it is listed here.
if Context.environment["BEEHIVE_TEST_SCOPE"] == "tsan" {
    let outOfScope: Set<String> = [
        "BeeHiveCommand", "_BeeHiveInspect", "BeeHiveDemo", "BeeHiveDemoServices", "BeeHiveServiceLifecycle",
        "_BeeHiveMacrosPlugin", "BeeHiveMacros", "BeeHiveIntegrationTests", "BeeHiveCommandTests",
        "BeeHiveMacrosTests", "BeeHiveServiceLifecycleTests", "_BeeHiveDiscoveryTests",
    ]
    package.targets.removeAll { outOfScope.contains($0.name) }
    let productsOutOfScope: Set<String> = [
        "beehive", "beehive-demo", "BeeHiveServiceLifecycle", "BeeHiveMacros", "BeeHiveDynamic",
    ]
    package.products.removeAll { productsOutOfScope.contains($0.name) }
    for target in package.targets where target.name == "BeeHiveTests" {
        target.exclude += [
            "AccessBudgetTests.swift", "AnnotationTests.swift", "AsyncResolutionTests.swift", "Binding",
            "ByTypeRegistrationTests.swift", "CachedResolutionTests.swift",
            "Compatibility/BHRouterCompatibilityTests.swift", "Compatibility/BeeHiveServiceCompatibilityTests.swift",
            "Compatibility/CTMediatorCompatibilityTests.swift", "Compatibility/MGJRouterCompatibilityTests.swift",
            "Complexity", "DiagnosticLoggingTests.swift", "DiagnosticsAtTheSourceTests.swift",
            "FileRegistrationTests+HostileFiles.swift", "FileRegistrationTests.swift", "FirstUseTests.swift",
            "HostileTypedRecordTests.swift", "JSONLexerTests.swift", "KeyedTableTests.swift",
            "Mediation/MediatorURLTests.swift", "Modules/ModuleValidationTests.swift", "NoteRunTests.swift",
            "ReportTests.swift", "RoomLayeringTests.swift", "Routing/HiveIntegrationTests.swift",
            "Routing/RedirectTableTests.swift", "Routing/RouteTableTests.swift", "Routing/RouterCanOpenTests.swift",
            "Routing/RouterFallbackTests.swift", "Routing/RouterMatchingTests.swift",
            "Routing/RouterOpeningTests.swift", "Routing/RouterPathComponentTests.swift",
            "Routing/RouterRegistrationTests.swift", "Routing/RouterSchemeTests.swift",
            "Routing/RouterServiceCallTests.swift", "Routing/RouterURLGenerationTests.swift",
            "Routing/RouterWorstCaseTests.swift", "ServiceKeyTests.swift", "SwiftRecordTests.swift",
            "TelemetryTests.swift", "TimelineTests.swift", "TypedRecordTests.swift",
        ]
    }
}
