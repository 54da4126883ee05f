import BeeHiveTestSupport
import Foundation
import Testing

@Suite("inspect lists what a running program registers")
struct RuntimeAgreementTests {
    @Test(
        "AnnotatedApp's registrations at run time equal its inspected records (built debug and release)",
        arguments: ["debug", "release"])
    func annotatedApp(configuration: String) throws {
        let app = try FixturePackage.product("AnnotatedApp", configuration)
        let runtime = keyValues(try Tool.succeed(app, []))
        let (json, _) = try Tool.inspectJSON([app])
        // The fixture's shared hive reads the default sections only.
        let records = json.records.filter { $0.section.hasPrefix("beehive_") && $0.error == nil }
        let services = records.compactMap(\.service).sorted().joined(separator: ",")
        let modules = records.filter { $0.kind == "module" }.map { record in
            "\(record.module ?? ""):\(record.level ?? -1):\(record.priority ?? -1):\(record.async ?? false)"
        }
        let routes = records.filter { $0.kind == "route" }.map { "\($0.route ?? "")=\($0.handler ?? "")" }
        #expect(runtime["registrations"] == String(records.filter { $0.kind == "service" }.count))
        #expect(runtime["services"] == services)
        #expect(runtime["modules"] == modules.joined(separator: ","))
        #expect(runtime["routes"] == routes.joined(separator: ","))
    }

    @Test("a C program linked with the scanner finds the records that inspect lists, in every section")
    func scannerProgram() throws {
        let bench = try Workbench.shared.get()
        let scanner = Tool.repository.appendingPathComponent("CSupport/_BeeHiveScanner")
        let scannerSources = try FileManager.default.contentsOfDirectory(atPath: scanner.path)
            .filter { $0.hasSuffix(".c") }.map { scanner.appendingPathComponent($0).path }
        let linkers = Tool.repository.appendingPathComponent("Tests/Fixtures/CLinkers")
        let program = bench.path("scanned")
        try Tool.succeed(
            "cc",
            [
                "-I" + Tool.repository.appendingPathComponent("CSupport/CBeeHive/include").path,
                "-I" + scanner.appendingPathComponent("include").path,
                "-I" + Tool.repository.appendingPathComponent("CSupport/_BeeHiveFormat/include").path,
                "-Wl,--gc-sections",
                linkers.appendingPathComponent("main.c").path, linkers.appendingPathComponent("records_a.c").path,
                linkers.appendingPathComponent("records_b.c").path, bench.path("payments.c"),
            ] + scannerSources + ["-lelf", "-lpthread", "-o", program])
        // Each line: "<section> <record>".
        let found = try Tool.succeed(program, []).split(separator: "\n").compactMap { line -> String? in
            guard let space = line.firstIndex(of: " "), !line.hasPrefix("problem") else { return nil }
            return try? describe(section: String(line[..<space]), json: String(line[line.index(after: space)...]))
        }
        let (json, _) = try Tool.inspectJSON([program])
        let inspected = json.records.map { record in
            "\(record.section) \(record.service ?? record.module ?? record.route ?? "") "
                + "\(record.implementation ?? record.handler ?? "") \(record.name ?? "")"
        }
        #expect(found.count == 8)
        #expect(found.sorted() == inspected.sorted())
    }

    /// A record, decoded by Foundation's JSON parser rather than the library's, in the same words as above.
    private func describe(section: String, json: String) throws -> String {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        if let module = value as? String { return "\(section) \(module)  " }
        guard let object = value as? [String: Any] else { return "\(section) ?" }
        if let module = object["module"] as? String { return "\(section) \(module)  " }
        if let route = object["route"] as? String {
            return "\(section) \(route) \(object["handler"] as? String ?? "") "
        }
        if let impl = object["impl"] as? String {
            return "\(section) \(object["service"] as? String ?? "") \(impl) \(object["name"] as? String ?? "")"
        }
        let (service, impl) = object.first.map { ($0.key, $0.value as? String ?? "") } ?? ("", "")
        return "\(section) \(service) \(impl) "
    }

    private func keyValues(_ output: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return result
    }
}

@Suite("inspect and check read every fixture")
struct SpeedTests {
    @Test("inspecting and checking every fixture binary finishes (Tool's hang guard; no duration is asserted)")
    func fixtures() throws {
        var files: [String] = []
        for configuration in ["debug", "release"] {
            let products = try FixturePackage.products(configuration)
            for name in ["AnnotatedApp", "PluginHost", "LifecycleApp", "UnloadHost", "PluginLab"] {
                files.append(products.appendingPathComponent(name).path)
            }
            for library in ["libGreeterPlugin.so", "libCRecordsPlugin.so", "libBeeHiveDynamic.so"] {
                files.append(products.appendingPathComponent(library).path)
            }
        }
        let inspect = try Tool.beehive(["inspect", "--format", "json"] + files)
        let check = try Tool.beehive(["check"] + files)
        #expect(inspect.status == 0, "\(inspect)")
        #expect(check.status == 1, "\(check)")
        print("inspect of \(files.count) fixture files: \(inspect.seconds) s; check: \(check.seconds) s")
    }
}
