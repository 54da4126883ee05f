import BeeHiveTestSupport
import Foundation
import Testing

/// Keeps what the package's underscored targets show to other packages small (issue 34): their Swift declarations
/// are `package`, or `@_spi(Testing) public` for what the fuzzers (`Fuzz/`, a package of their own) check; and the
/// C targets export to programs only the functions Swift calls. Reads the sources, builds nothing (milliseconds).
///
/// The counts were taken with:
/// - Swift: `grep -rnE '^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*public\b' Sources/_* --include=*.swift | grep -v '@_spi'`
/// - C: `readelf -Ws` on the C objects of `swift build` (`.build/debug/<C target>.build/*.o`): the defined `GLOBAL`
///   symbols of `DEFAULT` visibility whose names start with `bh_`; `nm -D --defined-only` of
///   `libBeeHiveDynamic.so` gives the same list less `_BeeHiveInspect`'s (the tool's only).
@Suite("What the underscored targets export")
struct AccessBudgetTests {
    /// Public declarations outside `@_spi` allowed in all the underscored Swift targets together (today: the macro
    /// plugin's macros, 14).
    static let publicBudget = 20

    /// The C functions exported (default visibility): each one Swift calls. A new one is hidden
    /// (`BH_HIDDEN`, `__attribute__((visibility("hidden")))`) unless Swift calls it; then it is listed here.
    static let exported: Set<String> = [
        // _BeeHiveInspect (the beehive tool)
        "bh_inspect_open", "bh_inspect_close",
        // _BeeHiveAtomics (the contended paths of the lock's inline functions, which Swift calls)
        "bh_lock_acquire_contended", "bh_lock_wake",
        // _BeeHiveRuntime
        "bh_existential_shape_of", "bh_existential_metatype_shape_of", "bh_any_type", "bh_existential_make",
        "bh_existential_metatype_make", "bh_existential_parts", "bh_swift_type_metadata", "bh_swift_witness_table",
        "bh_swift_conforms_to_protocol", "bh_swift_type_descriptor", "bh_swift_type_index",
        "bh_type_index_free", "bh_type_index_find", "bh_type_index_entry", "bh_type_index_drop_image",
        "bh_type_index_existential_name", "bh_type_index_holds_type",
        "bh_swift_conformance_table", "bh_conformance_table_find", "bh_conformance_table_find_named",
        "bh_conformance_table_free", "bh_swift_module",
        "bh_swift_mangled_name", "bh_swift_existential_name", "bh_image_path",
        // _BeeHiveScanner
        "bh_pin_swift_images", "bh_pinned_image_count", "bh_plugin_file_read", "bh_loaded_images",
        "bh_loaded_images_free", "bh_handle_needs_swift", "bh_other_definition", "bh_scanner_create",
        "bh_scanner_destroy", "bh_scanner_keep_only", "bh_scanner_scan", "bh_scanner_drain", "bh_scanner_has_pending",
        "bh_loaded_image_count", "bh_unloaded_image_count", "bh_image_base", "bh_scanner_image_address",
        "bh_main_program_address", "bh_scanner_stats", "bh_startup_scanner",
        // _BeeHiveSignals
        "bh_signal_catcher_install", "bh_signal_catcher_fd", "bh_signal_catcher_uninstall", "bh_signal_catcher_free",
        "bh_pipe_cloexec",
    ]

    static let root = Command.repository

    /// The files under `folder` (relative to the repository) whose names end with `suffix`, skipping `skipping`.
    static func files(under folder: String, endingWith suffix: String, skipping: Set<String> = []) -> [URL] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var found: [URL] = []
        for case let url as URL in walker {
            if skipping.contains(url.lastPathComponent) {
                walker.skipDescendants()
                continue
            }
            if url.lastPathComponent.hasSuffix(suffix) { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    static func lines(of url: URL) -> [Substring] {
        ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// Whether `line` declares something `public` (its modifiers and attributes before the keyword), not under
    /// `@_spi`.
    static func isPublicOutsideSPI(_ line: Substring) -> Bool {
        guard !line.contains("@_spi(") else { return false }
        var rest = line.drop { $0 == " " }
        while rest.hasPrefix("@") {  // attributes: @inlinable, @usableFromInline, …
            guard let space = rest.firstIndex(of: " ") else { return false }
            rest = rest[space...].drop { $0 == " " }
        }
        return rest.hasPrefix("public ")
    }

    @Test("at most 20 public declarations outside @_spi in the underscored Swift targets")
    func swiftPublicDeclarations() throws {
        let folders = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Sources").path
        )
        .filter { $0.hasPrefix("_") }
        #expect(folders.contains("_BeeHiveDiscovery"), "expected to find the sources under \(Self.root.path)")
        var found: [String] = []
        for folder in folders {
            for file in Self.files(under: "Sources/" + folder, endingWith: ".swift") {
                for (number, line) in Self.lines(of: file).enumerated() where Self.isPublicOutsideSPI(line) {
                    found.append(
                        "\(folder)/\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))"
                    )
                }
            }
        }
        #expect(
            found.count <= Self.publicBudget,
            Comment(
                rawValue: "expected at most \(Self.publicBudget) public declarations outside @_spi; found "
                    + "\(found.count) (make them package, or @_spi(Testing) public if another package's tests need "
                    + "them):\n" + found.joined(separator: "\n")))
    }

    @Test("the core imports no Synchronization: a program that links BeeHive alone does not load its library")
    func noSynchronizationInTheCore() {
        // libswiftSynchronization.so among a program's own libraries costs every launch ~0.28 M instructions before
        // main (StartupMacros10: +612 K over compile-time wiring with it, +328 K without); Docs/Design.md.
        var found: [String] = []
        for folder in ["Sources/BeeHive", "Sources/_BeeHiveDiscovery", "Sources/_BeeHiveFileFormats"] {
            for file in Self.files(under: folder, endingWith: ".swift") {
                for (number, line) in Self.lines(of: file).enumerated()
                where line.contains("import Synchronization") && !line.drop(while: { $0 == " " }).hasPrefix("//") {
                    found.append("\(file.path.dropFirst(Self.root.path.count + 1)):\(number + 1)")
                }
            }
        }
        #expect(found.isEmpty, "expected no import of Synchronization in the core (bh_atomics.h instead): \(found)")
    }

    /// The functions and variables that a C file defines with external linkage, from the start of a line (the style
    /// of every file here): `type bh_name(…) {` (or `… }` on one line), its parameters perhaps on the next lines, or
    /// `type bh_name = …;`; not `static`, and not a prototype (`…);`).
    static func definitions(in url: URL) -> [String] {
        var found: [String] = []
        var pending: String?  // a function's name, until its parameters end with "{" (a definition) or ";"
        for line in lines(of: url) {
            if let name = pending {
                if line.hasSuffix("{") { found.append(name) }
                if line.hasSuffix("{") || line.hasSuffix(";") { pending = nil }
                continue
            }
            guard let first = line.first, first.isLetter || first == "_", !line.hasPrefix("typedef "),
                !line.hasPrefix("extern "), let match = line.firstMatch(of: /\b(bh_[a-z0-9_]+)\s*(\(|=)/),
                !line[..<match.range.lowerBound].contains(/\bstatic\b/)
            else { continue }
            let name = String(match.1)
            if match.2 == "=" || line.hasSuffix("{") || line.hasSuffix("}") {
                found.append(name)
            } else if !line.hasSuffix(";") {
                pending = name
            }
        }
        return found
    }

    @Test("the C targets export only the functions Swift calls")
    func exportedCSymbols() {
        // Fuzzing/ is left out of _BeeHiveScanner (Package.swift): the Fuzz package compiles it.
        let sources = Self.files(under: "CSupport", endingWith: ".c", skipping: ["Fuzzing"])
        let headers = Self.files(under: "CSupport", endingWith: ".h", skipping: ["Fuzzing"])
        #expect(sources.count > 10, "expected the C sources under \(Self.root.path)/CSupport")
        // Names declared hidden anywhere (a declaration's attribute applies to the definition).
        var hidden: Set<String> = []
        for file in headers + sources {
            for line in Self.lines(of: file)
            where line.contains("BH_HIDDEN ") || line.contains("visibility(\"hidden\")") {
                if let name = line.firstMatch(of: /\b(bh_[a-z0-9_]+)\s*(\(|=)/)?.1 { hidden.insert(String(name)) }
            }
        }
        var exported: Set<String> = []
        for file in sources {
            exported.formUnion(Self.definitions(in: file).filter { !hidden.contains($0) })
        }
        #expect(
            exported.subtracting(Self.exported).isEmpty,
            Comment(
                rawValue: "expected these C symbols hidden (Swift does not call them) or listed in "
                    + "AccessBudgetTests.exported: \(exported.subtracting(Self.exported).sorted())"))
        #expect(
            Self.exported.subtracting(exported).isEmpty,
            "expected these listed C symbols to be defined and exported: \(Self.exported.subtracting(exported).sorted())"
        )
    }
}
