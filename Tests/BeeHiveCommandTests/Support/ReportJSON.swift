/// The schema of `Hive.report()` (Docs/Report.md, schema version 1), written down again from the document: a
/// running fixture's report and `beehive inspect --format report` are both decoded with it, so that what is
/// compared is the documented schema, not either side's types.
struct ReportJSON: Decodable, Sendable, Equatable {
    var schemaVersion: Int
    var services: [Service]
    var modules: [Module]
    var routes: [Route]
    var withdrawn: [Withdrawn]
    var problems: [Problem]
    var droppedProblems: Int

    struct Service: Decodable, Sendable, Equatable {
        var service: String
        var name: String?
        var implementation: String
        var rank: Int?
        var properties: [String: String]?
        var scope: String?
        var state: String
        var reason: String?
        var source: Source
        var plugin: String?
    }

    struct Module: Decodable, Sendable, Equatable {
        var module: String
        var level: Int
        var priority: Int
        var async: Bool
        var source: Source
        var plugin: String?
    }

    struct Route: Decodable, Sendable, Equatable {
        var pattern: String
        var handler: String
        var source: Source
        var plugin: String?
    }

    struct Withdrawn: Decodable, Sendable, Equatable {
        var service: String
        var name: String?
        var reason: String
    }

    struct Problem: Decodable, Sendable, Equatable {
        var severity: String
        var code: String
        var message: String
        var source: Source?
    }

    struct Source: Decodable, Sendable, Equatable {
        var kind: String
        var location: String?
        var image: String?
        var section: String?
        var offset: Int?
        var file: String?
        var entry: Int?
        var description: String
    }

    /// The report without what only a process knows: registrations in code (and their problems), and whether a
    /// service's type was bound or its instance created (`declared`, as a file says).
    var fromRecords: ReportJSON {
        var result = self
        result.services = services.filter { $0.source.kind != "code" }.map { service in
            var service = service
            if service.state == "bound" || service.state == "created" { service.state = "declared" }
            return service
        }
        result.modules = modules.filter { $0.source.kind != "code" }
        result.problems = problems.filter { $0.source != nil && $0.source?.kind != "code" }
        return result
    }
}
