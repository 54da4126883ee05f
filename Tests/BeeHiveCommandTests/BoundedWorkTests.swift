import Foundation
import Testing

@Suite("Bounded work: a hostile object of millions of records costs bounded memory, and says what it left out")
struct BoundedWorkTests {
    /// Builds an object file whose `beehive_services` section holds `count` empty records (`{}` and a NUL: 3 bytes
    /// each), with the system's assembler: 3.5 million make a 10 MB file, the input of issue 18.
    static func manyEmptyRecords(_ count: Int, in bench: Workbench) throws -> String {
        let records = bench.path("empty-records-\(count).bin")
        try Data(repeating: 0, count: 0).write(to: URL(fileURLWithPath: records))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: records))
        let chunk = Data(
            [UInt8](repeating: 0, count: 3 * 65_536).enumerated().map { index, _ in
                [UInt8(ascii: "{"), UInt8(ascii: "}"), 0][index % 3]
            })
        var written = 0
        while written < count {
            let now = min(65_536, count - written)
            try handle.write(contentsOf: chunk.prefix(3 * now))
            written += now
        }
        try handle.close()
        let assembly = bench.path("empty-records-\(count).s")
        try ".section beehive_services,\"a\"\n.incbin \"\(records)\"\n".write(
            toFile: assembly, atomically: false, encoding: .utf8)
        let object = bench.path("empty-records-\(count).o")
        try Tool.succeed("cc", ["-c", assembly, "-o", object], in: bench.folder)
        return object
    }

    /// Runs `beehive` under GNU time; returns the output and the largest resident set, in kilobytes.
    static func measured(_ arguments: [String], in bench: Workbench) throws -> (Tool.Output, Int) {
        let report = bench.path("time-\(UUID().uuidString).txt")
        let output = try Tool.run(
            "/usr/bin/time", ["-f", "%M", "-o", report, try Tool.executable.get()] + arguments, timeout: 600)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let kilobytes = Int(text.split(separator: "\n").last.map(String.init) ?? "") ?? -1
        return (output, kilobytes)
    }

    @Test(
        "inspect and check of 3.5 million empty records (10 MB): at most 100,000 kept, the rest counted, status 2",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time for max RSS")
    )
    func millionsOfEmptyRecords() throws {
        let bench = try Workbench.shared.get()
        let count = 3_500_000
        let object = try Self.manyEmptyRecords(count, in: bench)
        let omitted = count - 100_000
        for format in ["json", "table"] {
            let (output, kilobytes) = try Self.measured(["inspect", "--format", format, object], in: bench)
            print("inspect --format \(format) of \(count) empty records: \(output.seconds) s, max RSS \(kilobytes) KB")
            #expect(output.status == 2, "\(output.status) \(output.stderr)")
            #expect(
                output.stderr
                    == "beehive: \(object): expected at most 100000 records per file; found \(omitted) more, counted "
                    + "but not listed or checked\n")
            // Issue 18: 7.1 GB of memory and 1.8 GB of JSON. Now: the 100,000 records kept and one of them encoded
            // at a time.
            #expect(kilobytes > 0 && kilobytes < 400_000, "max RSS \(kilobytes) KB")
            #expect(output.stdout.utf8.count < 120_000_000)
            if format == "json" {
                #expect(output.stdout.contains("\"omittedRecords\" : \(omitted),"))
                #expect(output.stdout.hasSuffix("  ],\n  \"version\" : 1\n}\n"))
            } else {
                #expect(
                    output.stdout.contains("\(object): \(omitted) more records not listed: expected at most 100000"))
            }
        }
        let (check, kilobytes) = try Self.measured(["check", object], in: bench)
        print("check of \(count) empty records: \(check.seconds) s, max RSS \(kilobytes) KB")
        #expect(check.status == 2)
        #expect(kilobytes > 0 && kilobytes < 400_000, "max RSS \(kilobytes) KB")
        #expect(check.stdout.contains("1 file not read whole"))
    }

    @Test("the streamed JSON is the JSON of the whole report: it decodes, with every field")
    func streamedJSONDecodes() throws {
        let bench = try Workbench.shared.get()
        let files = ["app", "records.o", "librecords.a", "libplugin.so"].map(bench.path)
        let (json, output) = try Tool.inspectJSON(files)
        #expect(output.status == 0, "\(output)")
        #expect(json.files.map(\.path) == files)
        #expect(json.files.allSatisfy { !$0.images.isEmpty })
        let records = json.files.flatMap { $0.images.flatMap(\.records) }
        #expect(records.contains { $0.service == "App.Tracker" && $0.implementation == "App.ConsoleTracker" })
        // Pretty-printed with sorted keys, two spaces a level, as JSONEncoder writes it.
        #expect(
            output.stdout.hasPrefix("{\n  \"files\" : [\n    {\n      \"format\" : \"elf\",\n      \"images\" : [\n"))
    }
}
