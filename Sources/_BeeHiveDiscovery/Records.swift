/// A service record: `service` is implemented by the type named `implementation`.
public struct ServiceRecord: Sendable, Hashable {
    public let service: String
    public let implementation: String
    public let name: String?

    public init(service: String, implementation: String, name: String? = nil) {
        self.service = service
        self.implementation = implementation
        self.name = name
    }

    /// The forms, for messages.
    public static let expectedForms = #"{"<service>":"<impl>"} or {"service":"…","impl":"…"[,"name":"…"]}"#

    /// Reads a service record from its parsed form.
    public init(_ parsed: ParsedRecord) throws(RecordError) {
        guard case .object(let fields) = parsed else {
            throw RecordError(.shape, "expected \(Self.expectedForms); found a bare string")
        }
        if fields.contains(where: { $0.key == "impl" }) {
            var service: String?
            var impl: String?
            var name: String?
            for field in fields {
                switch field.key {
                case "service": service = try field.nonEmptyString()
                case "impl": impl = try field.nonEmptyString()
                case "name": name = try field.nonEmptyString()
                default: throw RecordError(.shape, "expected only the keys service, impl, name; found \"\(field.key)\"")
                }
            }
            guard let service, let impl else {
                throw RecordError(.shape, "expected a \"service\" key beside \"impl\"; found none")
            }
            self.init(service: service, implementation: impl, name: name)
        } else if fields.count == 1 {
            self.init(service: try fields[0].nonEmptyString(key: true), implementation: try fields[0].nonEmptyString())
        } else {
            throw RecordError(.shape, "expected \(Self.expectedForms); found an object with \(fields.count) keys")
        }
    }
}

/// A module's level as written in a record: a name (`"basic"`) or a number (`0`).
public enum RecordLevel: Sendable, Hashable {
    case named(String)
    case number(Int)
}

/// A module record.
public struct ModuleRecord: Sendable, Hashable {
    public let module: String
    public let level: RecordLevel?
    public let priority: Int?
    public let isAsync: Bool?

    public init(module: String, level: RecordLevel? = nil, priority: Int? = nil, isAsync: Bool? = nil) {
        self.module = module
        self.level = level
        self.priority = priority
        self.isAsync = isAsync
    }

    /// The forms, for messages.
    public static let expectedForms = #""<module>" or {"module":"…"[,"level":…,"priority":…,"async":…]}"#

    /// Reads a module record from its parsed form.
    public init(_ parsed: ParsedRecord) throws(RecordError) {
        switch parsed {
        case .string(let name):
            guard !name.isEmpty else { throw RecordError(.shape, "expected a module name; found an empty string") }
            self.init(module: name)
        case .object(let fields):
            var module: String?
            var level: RecordLevel?
            var priority: Int?
            var isAsync: Bool?
            for field in fields {
                switch (field.key, field.value) {
                case ("module", _): module = try field.nonEmptyString()
                case ("level", .string(let s)): level = .named(s)
                case ("level", .integer(let i)): level = .number(i)
                case ("priority", .integer(let i)): priority = i
                case ("async", .bool(let b)): isAsync = b
                case ("level", _), ("priority", _), ("async", _):
                    let expected =
                        field.key == "level"
                        ? "a name or an integer" : field.key == "priority" ? "an integer" : "true or false"
                    throw RecordError(.shape, "expected \(expected) for \"\(field.key)\"; found \(field.value)")
                default:
                    throw RecordError(
                        .shape, "expected only the keys module, level, priority, async; found \"\(field.key)\"")
                }
            }
            guard let module else {
                throw RecordError(.shape, "expected \(Self.expectedForms); found no \"module\" key")
            }
            self.init(module: module, level: level, priority: priority, isAsync: isAsync)
        }
    }
}

/// A route record: URLs matching `pattern` are handled by the type named `handler`.
public struct RouteRecord: Sendable, Hashable {
    public let pattern: String
    public let handler: String

    public init(pattern: String, handler: String) {
        self.pattern = pattern
        self.handler = handler
    }

    /// The form, for messages.
    public static let expectedForms = #"{"route":"<pattern>","handler":"<type>"}"#

    /// Reads a route record from its parsed form.
    public init(_ parsed: ParsedRecord) throws(RecordError) {
        guard case .object(let fields) = parsed else {
            throw RecordError(.shape, "expected \(Self.expectedForms); found a bare string")
        }
        var pattern: String?
        var handler: String?
        for field in fields {
            switch field.key {
            case "route": pattern = try field.nonEmptyString()
            case "handler": handler = try field.nonEmptyString()
            default: throw RecordError(.shape, "expected only the keys route, handler; found \"\(field.key)\"")
            }
        }
        guard let pattern, let handler else {
            throw RecordError(
                .shape, "expected \(Self.expectedForms); found no \"\(pattern == nil ? "route" : "handler")\" key")
        }
        self.init(pattern: pattern, handler: handler)
    }
}

extension RecordField {
    fileprivate func nonEmptyString(key: Bool = false) throws(RecordError) -> String {
        if key {
            guard !self.key.isEmpty else { throw RecordError(.shape, "expected a service name as the key; found \"\"") }
            guard case .string(let s) = value else {
                throw RecordError(.shape, "expected a type name string for \"\(self.key)\"; found \(value)")
            }
            guard !s.isEmpty else { throw RecordError(.shape, "expected a type name for \"\(self.key)\"; found \"\"") }
            return self.key
        }
        guard case .string(let s) = value else {
            throw RecordError(.shape, "expected a string for \"\(self.key)\"; found \(value)")
        }
        guard !s.isEmpty else {
            throw RecordError(.shape, "expected a non-empty string for \"\(self.key)\"; found \"\"")
        }
        return s
    }
}
