import Foundation

/// The load-time scanner's C sources, for tests that link it into a C program of their own: every file of
/// `CSupport/_BeeHiveScanner` but the Swift type walk, and the include directories they need.
package enum ScannerSources {
    /// The scanner's `.c` files (absolute paths), in a stable order.
    package static func files(in repository: String) throws -> [String] {
        let folder = repository + "/CSupport/_BeeHiveScanner"
        return try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".c") && $0 != "swift_types.c" }.sorted().map { folder + "/" + $0 }
    }

    /// `-I` flags for `beehive.h`, the scanner's header and the format's headers.
    package static func includeFlags(in repository: String) -> [String] {
        ["CBeeHive", "_BeeHiveScanner", "_BeeHiveFormat"].map { "-I\(repository)/CSupport/\($0)/include" }
    }

    /// The `-Xcc` flags with which `swiftc` finds the C modules that the package's Swift modules were built against
    /// (the scanner's, the format's, the runtime binding's, the atomics', and BeeHiveModules' signals), for a type check
    /// outside SwiftPM.
    package static func clangModuleFlags(products: URL, repository: URL) -> [String] {
        let modules = ["_BeeHiveScanner", "_BeeHiveFormat", "_BeeHiveSignals", "_BeeHiveRuntime", "_BeeHiveAtomics"]
        return modules.flatMap { module in
            [
                "-Xcc", "-fmodule-map-file=" + products.appendingPathComponent("\(module).build/module.modulemap").path,
                "-Xcc", "-I" + repository.appendingPathComponent("CSupport/\(module)/include").path,
            ]
        }
    }
}
