import BeeHiveTestSupport
import Foundation
import Testing

/// A file of records only (Tests/Fixtures/CLinking/records.c), built into a static archive or a shared library and
/// linked into a C program with the scanner (the printer of Tests/Fixtures/CLinkers/main.c) by the real compilers
/// and linkers. Nothing refers to such a file, so a linker leaves the archive member out, and with `--as-needed`
/// drops the library; `BH_ANCHOR` and `BH_USE_ANCHOR` (beehive.h), or the linker flags `--whole-archive` and
/// `--no-as-needed`, keep them.
@Suite("Real binaries: records-only archive members and --as-needed libraries, kept by anchors or linker flags")
struct LinkingTests {
    struct Toolchain: Sendable, CustomStringConvertible {
        let compiler: String
        let linker: String
        var description: String { "\(compiler) + \(linker)" }
    }

    static let toolchains = ["clang", "gcc"].flatMap { cc in
        ["bfd", "gold", "lld"].map { Toolchain(compiler: cc, linker: $0) }
    }

    /// How the records reach the program.
    enum Link: String, Sendable, CaseIterable, CustomStringConvertible {
        case archive = "libpayments.a, nothing refers to it"
        case archiveAnchored = "libpayments.a, the program uses its anchor"
        case archiveWhole = "libpayments.a inside --whole-archive"
        case shared = "libpayments.so with --as-needed, nothing refers to it"
        case sharedAnchored = "libpayments.so with --as-needed, the program uses its anchor"
        case sharedNoAsNeeded = "libpayments.so inside --no-as-needed"
        var description: String { rawValue }

        /// Whether the library's records should reach the program.
        var keepsRecords: Bool { self != .archive && self != .shared }

        /// The program's objects and libraries, in link order.
        var inputs: [String] {
            let anchored = self == .archiveAnchored || self == .sharedAnchored
            let program = ["main.o", "app.o"] + (anchored ? ["anchor.o"] : [])
            switch self {
            case .archive, .archiveAnchored: return program + ["scanner.o", "libpayments.a"]
            case .archiveWhole:
                return program + ["scanner.o", "-Wl,--whole-archive", "libpayments.a", "-Wl,--no-whole-archive"]
            case .shared, .sharedAnchored: return ["-Wl,--as-needed"] + program + ["scanner.o", "-L.", "-lpayments"]
            case .sharedNoAsNeeded:
                return ["-Wl,--as-needed"] + program + [
                    "scanner.o", "-L.", "-Wl,--no-as-needed", "-lpayments", "-Wl,--as-needed",
                ]
            }
        }
    }

    /// The program's own record (app.c): found in every build.
    static let programRecords: Set<String> = [
        #"beehive_services {"service":"App.Clock","impl":"App.SystemClock","file":"app.c","line":4}"#
    ]

    /// The records of records.c.
    static let libraryRecords: Set<String> = [
        #"beehive_services {"service":"Payments.Service","impl":"Payments.ServiceImpl","file":"records.c","line":6}"#,
        #"beehive_mods {"module":"Payments.PaymentsModule","level":"normal","priority":3,"file":"records.c","line":7}"#,
        #"beehive_routes {"route":"app://pay/:order","handler":"Payments.PayRoute","file":"records.c","line":8}"#,
    ]

    @Test(
        "a records-only archive member or --as-needed library registers nothing, unless an anchor or a flag keeps it",
        arguments: toolchains)
    func anchors(_ toolchain: Toolchain) throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("beehive-linking-\(toolchain.compiler)-\(toolchain.linker)-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let repository = Command.repository.path
        let fixtures = FixturePackage.path.appendingPathComponent("CLinking").path
        let cc = toolchain.compiler
        // As SwiftPM's release builds do: sections of their own, collected by --gc-sections.
        let flags =
            ["-O2", "-fPIC", "-ffunction-sections", "-fdata-sections"] + ScannerSources.includeFlags(in: repository)
        // bfd and lld also with -z start-stop-gc, under which a reference to __start_<section> (the note's bounds)
        // keeps nothing alive: the records' SHF_GNU_RETAIN does (gold has no such option).
        let linking =
            ["-fuse-ld=\(toolchain.linker)", "-Wl,--gc-sections"]
            + (toolchain.linker == "gold" ? [] : ["-Wl,-z,start-stop-gc"])
        let sources = [
            "\(fixtures)/records.c": "records.o", "\(fixtures)/app.c": "app.o", "\(fixtures)/anchor.c": "anchor.o",
            "\(FixturePackage.path.path)/CLinkers/main.c": "main.o",
        ]
        // The scanner's files, as one relocatable object.
        let scannerObjects = try ScannerSources.files(in: repository).enumerated().map { index, source in
            let object = "scanner-\(index).o"
            try Command.run(cc, flags + ["-c", source, "-o", object], in: folder)
            return object
        }
        try Command.run(cc, ["-r"] + scannerObjects + ["-o", "scanner.o"], in: folder)
        for (source, object) in sources {
            // The library is built as a careful library is: nothing exported but what says so (the anchor does).
            let hidden = object == "records.o" ? ["-fvisibility=hidden"] : []
            try Command.run(cc, flags + hidden + ["-c", source, "-o", object], in: folder)
        }
        try Command.run("ar", ["rcs", "libpayments.a", "records.o"], in: folder)
        try Command.run(cc, linking + ["-shared", "records.o", "-o", "libpayments.so"], in: folder)

        for link in Link.allCases {
            let program = "app-\(Link.allCases.firstIndex(of: link)!)"
            try Command.run(
                cc, linking + link.inputs + ["-lelf", "-Wl,-rpath,\(folder.path)", "-o", program], in: folder)
            let output = try Command.run(folder.appendingPathComponent(program).path, [])
            let found = Set(output.split(separator: "\n").map(String.init))
            let expected = link.keepsRecords ? Self.programRecords.union(Self.libraryRecords) : Self.programRecords
            #expect(found == expected, "\(link)")
            if link == .shared || link == .sharedAnchored || link == .sharedNoAsNeeded {
                let needed = try Command.run("readelf", ["-dW", program], in: folder).contains("[libpayments.so]")
                #expect(needed == link.keepsRecords, "\(link): DT_NEEDED libpayments.so")
            }
        }
    }

    @Test("a fully static executable (-static-executable) links with no flag of the user's and finds its records")
    func staticExecutable() throws {
        // A scratch folder of its own: every module is built for the static link.
        let scratch = FixturePackage.path.appendingPathComponent(".build-static")
        try Command.run(
            "swift",
            [
                "build", "--package-path", FixturePackage.path.path, "--scratch-path", scratch.path, "--product",
                "AnnotatedApp", "-Xswiftc", "-static-executable",
            ] + FixtureBuild.withoutDebugInfo)
        let binary = scratch.appendingPathComponent("debug/AnnotatedApp").path
        let headers = try Command.run("readelf", ["-lW", binary])
        #expect(!headers.contains("INTERP"), "no program interpreter: the executable is fully static")
        #expect(!(try Command.run("readelf", ["-dW", binary])).contains("(NEEDED)"), "no shared library needed")

        let run = try ImageOpens.run(binary)
        #expect(run.opens == [], "no file is opened: the records are read from memory")
        let result = Command.keyValues(run.output)
        #expect(result["registrations"] == "5")
        #expect(
            result["services"]
                == "AnnotatedApp.Clock,AnnotatedApp.Counter,AnnotatedApp.Greeter,AnnotatedApp.Greeter,AnnotatedApp.Storage"
        )
        #expect(result["greet"] == "hello")
        #expect(result["clock"] == "42")
        #expect(result["modules"] == "AnnotatedApp.NetworkModule:0:100:true,AnnotatedApp.LoginModule:1:10:false")
        #expect(result["routes"] == "app://user/:id=AnnotatedApp.UserRoute")
        #expect(result["diagnostics"] == "0")
        #expect(result["validate"] == "ok")
    }
}
