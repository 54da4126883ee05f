// swift-tools-version:6.3
// libFuzzer harnesses for BeeHive's parsers (issue 8). A package of its own, so that the main package's
// `swift build` never builds them. Build and run them with Scripts/fuzz.sh; see README.md.
import PackageDescription

let beehive = Target.Dependency.product(name: "BeeHive", package: "BeeHive")
let router = Target.Dependency.product(name: "BeeHiveRouter", package: "BeeHive")

/// A harness: an executable whose `@main` hands its input callback to libFuzzer's driver.
func fuzzer(_ name: String, _ more: [Target.Dependency] = []) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzCheck", beehive] + more)
}

let package = Package(
    name: "BeeHiveFuzz",
    dependencies: [
        .package(name: "BeeHive", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // Invariant checks shared by the harnesses: a failed check aborts with a message, which libFuzzer
        // reports as a crash and saves as a reproducer.
        .target(name: "FuzzCheck", dependencies: ["CFuzzerDriver"]),
        // The declaration of libFuzzer's LLVMFuzzerRunDriver.
        .target(name: "CFuzzerDriver"),
        fuzzer("RecordFuzzer", ["FileOracle"]),
        fuzzer("RouteFuzzer", [router]),
        fuzzer("RedirectFuzzer", [router]),
        // What the file harnesses share: the input written to a file, and a reference reading of it.
        .target(
            name: "FileOracle",
            dependencies: ["FuzzCheck", beehive, .product(name: "Logging", package: "swift-log")]
        ),
        fuzzer("ServiceFileFuzzer", ["FileOracle"]),
        fuzzer("ModuleFileFuzzer", ["FileOracle"]),
        // The beehive tool's ELF reader (CSupport/_BeeHiveInspect/inspect.c, compiled from the main package's file),
        // instrumented for coverage like the Swift code; libelf as the tool links it.
        .target(
            name: "CInspectReader",
            cSettings: [.unsafeFlags(["-fsanitize=fuzzer-no-link,address"])],
            linkerSettings: [.linkedLibrary("elf"), .linkedLibrary("z")]
        ),
        fuzzer("ELFInspectFuzzer", ["CInspectReader"]),
        // The load-time scanner's reader of image files (CSupport/_BeeHiveScanner/elf_sections.c, with libelf, which it
        // dlopens), through its entry for fuzzing (Fuzzing/fuzzing.c, which the main package leaves out of its scanner:
        // only this target compiles it): the scanner's files compiled from the main package's (every one but plugins.c
        // and plugin_files.c, which nothing here calls), instrumented for coverage like the Swift code.
        .target(name: "CScannerSections", cSettings: [.unsafeFlags(["-fsanitize=fuzzer-no-link,address"])]),
        // Not on the BeeHive product, which links the same scanner, uninstrumented: its symbols would be defined twice.
        .executableTarget(name: "ELFSectionsFuzzer", dependencies: ["FuzzCheck", "CScannerSections"]),
    ]
)
