import Foundation
import Testing

@Suite("beehive inspect on binaries built for the test")
struct InspectTests {
    let bench: Workbench

    init() throws { bench = try Workbench.shared.get() }

    /// The records of `file`'s JSON, after checking the schema version and that the file was read.
    private func records(_ file: String) throws -> [InspectionJSON.Record] {
        let (json, output) = try Tool.inspectJSON([file])
        #expect(output.status == 0, "\(output)")
        #expect(json.version == 1)
        #expect(json.files.map(\.error) == [nil])
        return json.records
    }

    @Test("an object file: each record's kind, names, level, priority, async, section, offset and source file")
    func objectFile() throws {
        let (json, _) = try Tool.inspectJSON([bench.path("records.o")])
        let file = try #require(json.files.first)
        #expect(file.format == "elf")
        let image = try #require(file.images.first)
        #expect(image.type == "object")
        #expect(image.symbols == "full")
        #expect(image.notes.map(\.version) == [3])
        #expect(
            image.notes.first?.entries.map { "\($0.kind)=\($0.section)" } == [
                "services=beehive_services", "modules=beehive_mods", "routes=beehive_routes",
            ])
        // Object files: sections have no address yet, and keep the retain flag beehive.h asks for.
        #expect(image.sections.allSatisfy { $0.address == nil && $0.retained && $0.namedByNote && $0.allocated })
        let records = image.records
        #expect(records.count == 5)
        #expect(records.map(\.kind) == ["service", "service", "module", "module", "route"])
        #expect(records[0].service == "App.Tracker" && records[0].implementation == "App.ConsoleTracker")
        #expect(records[0].name == nil)
        #expect(records[1].service == "App.Cache" && records[1].implementation == "App.DiskCache")
        #expect(records[1].name == "disk")
        #expect(records[2].module == "App.NetworkModule")
        #expect(records[2].level == 0 && records[2].priority == 100 && records[2].async == true)
        #expect(records[3].module == "App.HomeModule")
        #expect(records[3].level == 1 && records[3].priority == 0 && records[3].async == false)
        #expect(records[4].route == "app://user/:id" && records[4].handler == "App.UserRoute")
        #expect(records.allSatisfy { $0.source?.file == "records.c" && $0.error == nil })
        #expect(records[0].offset == 0 && records[0].section == "beehive_services")
        // Format 2: each record says where its annotation is.
        #expect(records.map(\.file) == Array(repeating: "records.c", count: 5))
        #expect(records.map(\.line) == [2, 3, 4, 5, 6])
    }

    @Test("each record's file offset points at its bytes in the file, archive members included")
    func fileOffsetsPointAtTheRecords() throws {
        for name in ["records.o", "librecords.a", "app", "app-static", "libplugin.so"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: bench.path(name)))
            for record in try records(bench.path(name)) {
                let start = Int(record.fileOffset)
                let text = String(
                    decoding: data[start..<min(start + 200, data.count)].prefix { $0 != 0 }, as: UTF8.self)
                let expected = record.service ?? record.module ?? record.route ?? ""
                #expect(text.contains(expected), "\(name): \(record.section)+\(record.offset): \(text)")
            }
        }
    }

    @Test("archive members are read one by one; members without records are left out")
    func archive() throws {
        let (json, output) = try Tool.inspectJSON([bench.path("librecords.a")])
        #expect(output.status == 0)
        let file = try #require(json.files.first)
        #expect(file.format == "archive")
        #expect(file.memberCount == 3)
        #expect(file.images.map(\.member) == ["records.o", "payments.o"])
        let payments = try #require(file.images.last)
        // Section names other than the defaults are found through the note.
        #expect(payments.sections.map(\.name) == ["payments_services", "payments_mods"])
        #expect(payments.records.map { $0.service ?? $0.module ?? "" } == ["Payments.Service", "Payments.Module"])
        #expect(payments.records.last?.level == 2 && payments.records.last?.priority == -5)
    }

    @Test("a shared library (a plugin)")
    func sharedLibrary() throws {
        let (json, _) = try Tool.inspectJSON([bench.path("libplugin.so")])
        let image = try #require(json.files.first?.images.first)
        #expect(image.type == "sharedLibrary")
        #expect(
            image.records.map { $0.implementation ?? $0.handler ?? "" } == ["Plugin.LoudGreeter", "Plugin.HelloRoute"])
        #expect(image.sections.allSatisfy { $0.address != nil && $0.allocated })
    }

    @Test("executables: dynamic, linked with --gc-sections, static and stripped list the same records")
    func executables() throws {
        let reference = try records(bench.path("app"))
        #expect(reference.count == 7)
        #expect(Set(reference.compactMap { $0.source?.file }) == ["records.c", "payments.c"])
        func declarations(_ records: [InspectionJSON.Record]) -> [String] {
            records.map { "\($0.kind) \($0.service ?? $0.module ?? $0.route ?? "") \($0.typeName)" }.sorted()
        }
        for name in ["app-gc", "app-static", "app-stripped"] {
            let (json, _) = try Tool.inspectJSON([bench.path(name)])
            let image = try #require(json.files.first?.images.first)
            #expect(image.type == "executable", "\(name)")
            #expect(declarations(image.records) == declarations(reference), "\(name)")
        }
        let stripped = try #require(try Tool.inspectJSON([bench.path("app-stripped")]).0.files.first?.images.first)
        #expect(stripped.symbols != "full")
        #expect(stripped.records.allSatisfy { $0.source == nil })
    }

    @Test("malformed records are listed with the library's codes and messages; the good ones are kept")
    func malformedRecords() throws {
        let records = try records(bench.path("malformed.o"))
        #expect(records.filter { $0.error == nil }.compactMap(\.service) == ["Bad.Good1", "Bad.Good2"])
        let problems = records.compactMap { record in record.error.map { ($0.code, $0.message, record.text ?? "") } }
        #expect(
            problems.map(\.0).sorted() == [
                "invalidUTF8", "malformedRecord", "malformedRecord", "unknownModuleLevel", "unterminatedRecord",
            ])
        #expect(problems.contains { $0.0 == "malformedRecord" && $0.1.contains("expected ':'") })
        #expect(problems.contains { $0.0 == "unknownModuleLevel" && $0.1.contains("\"turbo\"") })
        #expect(problems.contains { $0.0 == "unterminatedRecord" && $0.2 == "{\"B" })
    }

    @Test("the library's own malformed test records (Tests/Annotations/malformed.c) read as the library reads them")
    func libraryMalformedRecords() throws {
        let object = bench.path("library-malformed.o")
        try Tool.succeed(
            "cc",
            [
                "-c", "-I" + Tool.repository.appendingPathComponent("CSupport/CBeeHive/include").path,
                Tool.repository.appendingPathComponent("Tests/Annotations/malformed.c").path, "-o", object,
            ])
        let records = try records(object)
        #expect(records.allSatisfy { $0.section == "bh_test_malformed" })
        #expect(records.filter { $0.error == nil }.count == 6)
        #expect(
            records.compactMap(\.error?.code).sorted() == [
                "invalidUTF8", "malformedRecord", "malformedRecord", "unterminatedRecord",
            ])
    }

    @Test("the table: a heading per image and aligned columns")
    func table() throws {
        let output = try Tool.beehive(["inspect", bench.path("app")])
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("\(bench.path("app")): executable, 7 records, 2 notes v3") == true)
        let heading = try #require(lines.first { $0.contains("KIND") })
        let column = try #require(heading.range(of: "SECTION+OFFSET")).lowerBound.utf16Offset(in: heading)
        let rows = lines.filter { $0.hasPrefix("  service") || $0.hasPrefix("  module") || $0.hasPrefix("  route") }
        #expect(rows.count == 7)
        for row in rows {
            let start = row.index(row.startIndex, offsetBy: column)
            #expect(row[start...].hasPrefix("beehive_") || row[start...].hasPrefix("payments_"), "\(row)")
        }
        #expect(rows.contains { $0.contains("App.Cache") && $0.contains("disk") && $0.contains("App.DiskCache") })
        #expect(rows.contains { $0.contains("App.NetworkModule") && $0.contains("basic") && $0.contains("100") })
    }

    @Test("a file without records, and an archive of members without records, say so")
    func noRecords() throws {
        let output = try Tool.beehive(["inspect", bench.path("libnothing.a"), bench.path("util.o")])
        #expect(output.status == 0)
        #expect(output.stdout.contains("\(bench.path("libnothing.a")): archive of 2 members, no BeeHive records"))
        #expect(output.stdout.contains("\(bench.path("util.o")): object file, no BeeHive records"))
    }
}

extension InspectionJSON.Record {
    /// The type the record names.
    var typeName: String { implementation ?? module ?? handler ?? "" }
}
