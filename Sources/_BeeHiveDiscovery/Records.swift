/// Where an annotation was written, from a record's `"file"` and `"line"` keys (format version 2).
package struct RecordLocation: Sendable, Hashable {
    /// The annotation's file: `annotations.c` (C macros) or `Module/File.swift` (Swift macros).
    package let file: String
    /// The annotation's line, from 1.
    package let line: Int

    package init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// Reads the `"file"` or `"line"` field into `file` or `line`; false for any other key.
    static func read(
        _ field: RecordField, file: inout String?, line: inout Int?
    ) throws(RecordError) -> Bool {
        switch (field.key, field.value) {
        case ("file", .string(let s)) where !s.isEmpty: file = s
        case ("line", .integer(let n)) where n >= 1: line = n
        case ("file", _): throw RecordError(.shape, "expected a non-empty file name for \"file\"; found \(field.value)")
        case ("line", _): throw RecordError(.shape, "expected a line number from 1 for \"line\"; found \(field.value)")
        default: return false
        }
        return true
    }

    /// The location that `"file"` and `"line"` give: both or neither.
    static func make(file: String?, line: Int?) throws(RecordError) -> RecordLocation? {
        switch (file, line) {
        case (let file?, let line?): return RecordLocation(file: file, line: line)
        case (nil, nil): return nil
        default:
            throw RecordError(
                .shape, "expected \"file\" and \"line\" together; found only \"\(file == nil ? "line" : "file")\"")
        }
    }
}

/// A service record: `service` is implemented by the type named `implementation`.
@_spi(Testing) public struct ServiceRecord: Sendable, Hashable {
    @_spi(Testing) public let service: String
    @_spi(Testing) public let implementation: String
    @_spi(Testing) public let name: String?
    /// Where the annotation was written, when the record says.
    package let location: RecordLocation?
    /// Its rank among the registrations of its service and name (`"rank"`), 0 when the record has none.
    package let rank: Int
    /// Its properties: the keys `"property:<name>"` with string values.
    package let properties: [String: String]
    /// The version of the service's API the implementation was built against (`"api":"2.1"`), when the record says.
    package let api: APIVersion?

    package init(
        service: String, implementation: String, name: String? = nil, location: RecordLocation? = nil, rank: Int = 0,
        properties: [String: String] = [String: String](), api: APIVersion? = nil
    ) {
        self.service = service
        self.implementation = implementation
        self.name = name
        self.location = location
        self.rank = rank
        self.properties = properties
        self.api = api
    }

    /// The forms, for messages.
    package static let expectedForms =
        #"{"<service>":"<impl>"} or {"service":"…","impl":"…"[,"name":"…"][,"rank":N][,"property:<name>":"…"…]"#
        + #"[,"api":"<MAJOR.MINOR.PATCH>"]"#
        + #"[,"file":"…","line":…]}"#

    /// The prefix of a property's key in a record: `"property:region":"eu"`.
    package static let propertyPrefix = "property:"

    /// Reads a service record from its parsed form.
    @_spi(Testing) public init(_ parsed: ParsedRecord) throws(RecordError) {
        guard case .object(let fields) = parsed else {
            throw RecordError(.shape, "expected \(Self.expectedForms); found a bare string")
        }
        if fields.contains(where: { $0.key == "impl" }) {
            var service: String?
            var impl: String?
            var name: String?
            var file: String?
            var line: Int?
            var rank = 0
            var properties: [String: String] = [:]
            var api: APIVersion?
            for field in fields {
                switch field.key {
                case "service": service = try field.nonEmptyString()
                case "impl": impl = try field.nonEmptyString()
                case "name": name = try field.nonEmptyString()
                case "rank":
                    guard case .integer(let n) = field.value else {
                        throw RecordError(.shape, "expected an integer for \"rank\"; found \(field.value)")
                    }
                    rank = n
                case "api": api = try field.version()
                case let key where key.hasPrefix(Self.propertyPrefix) && key.count > Self.propertyPrefix.count:
                    guard case .string(let value) = field.value else {
                        throw RecordError(.shape, "expected a string for \"\(key)\"; found \(field.value)")
                    }
                    properties[String(key.dropFirst(Self.propertyPrefix.count))] = value
                default:
                    guard try RecordLocation.read(field, file: &file, line: &line) else {
                        throw RecordError(
                            .shape,
                            "expected only the keys service, impl, name, rank, property:<name>, api, file, line; found "
                                + "\"\(field.key)\"")
                    }
                }
            }
            guard let service, let impl else {
                throw RecordError(.shape, "expected a \"service\" key beside \"impl\"; found none")
            }
            self.init(
                service: service, implementation: impl, name: name,
                location: try RecordLocation.make(file: file, line: line), rank: rank, properties: properties,
                api: api)
        } else if fields.count == 1 {
            self.init(service: try fields[0].nonEmptyString(key: true), implementation: try fields[0].nonEmptyString())
        } else {
            throw RecordError(.shape, "expected \(Self.expectedForms); found an object with \(fields.count) keys")
        }
    }
}

/// A module's level as written in a record: a name (`"basic"`) or a number (`0`).
package enum RecordLevel: Sendable, Hashable {
    case named(String)
    case number(Int)
}

/// A module record.
@_spi(Testing) public struct ModuleRecord: Sendable, Hashable {
    @_spi(Testing) public let module: String
    package let level: RecordLevel?
    package let priority: Int?
    package let isAsync: Bool?
    /// Where the annotation was written, when the record says.
    package let location: RecordLocation?

    package init(
        module: String, level: RecordLevel? = nil, priority: Int? = nil, isAsync: Bool? = nil,
        location: RecordLocation? = nil
    ) {
        self.module = module
        self.level = level
        self.priority = priority
        self.isAsync = isAsync
        self.location = location
    }

    /// The forms, for messages.
    package static let expectedForms =
        #""<module>" or {"module":"…"[,"level":…,"priority":…,"async":…][,"file":"…","line":…]}"#

    /// Reads a module record from its parsed form.
    @_spi(Testing) public init(_ parsed: ParsedRecord) throws(RecordError) {
        switch parsed {
        case .string(let name):
            guard !name.isEmpty else { throw RecordError(.shape, "expected a module name; found an empty string") }
            self.init(module: name)
        case .object(let fields):
            var module: String?
            var level: RecordLevel?
            var priority: Int?
            var isAsync: Bool?
            var file: String?
            var line: Int?
            for field in fields {
                if try RecordLocation.read(field, file: &file, line: &line) { continue }
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
                        .shape,
                        "expected only the keys module, level, priority, async, file, line; found \"\(field.key)\"")
                }
            }
            guard let module else {
                throw RecordError(.shape, "expected \(Self.expectedForms); found no \"module\" key")
            }
            self.init(
                module: module, level: level, priority: priority, isAsync: isAsync,
                location: try RecordLocation.make(file: file, line: line))
        }
    }
}

/// A route record: URLs matching `pattern` are handled by the type named `handler`.
@_spi(Testing) public struct RouteRecord: Sendable, Hashable {
    @_spi(Testing) public let pattern: String
    @_spi(Testing) public let handler: String
    /// Where the annotation was written, when the record says.
    package let location: RecordLocation?

    package init(pattern: String, handler: String, location: RecordLocation? = nil) {
        self.pattern = pattern
        self.handler = handler
        self.location = location
    }

    /// The form, for messages.
    package static let expectedForms = #"{"route":"<pattern>","handler":"<type>"[,"file":"…","line":…]}"#

    /// Reads a route record from its parsed form.
    @_spi(Testing) public init(_ parsed: ParsedRecord) throws(RecordError) {
        guard case .object(let fields) = parsed else {
            throw RecordError(.shape, "expected \(Self.expectedForms); found a bare string")
        }
        var pattern: String?
        var handler: String?
        var file: String?
        var line: Int?
        for field in fields {
            switch field.key {
            case "route": pattern = try field.nonEmptyString()
            case "handler": handler = try field.nonEmptyString()
            default:
                guard try RecordLocation.read(field, file: &file, line: &line) else {
                    throw RecordError(
                        .shape, "expected only the keys route, handler, file, line; found \"\(field.key)\"")
                }
            }
        }
        guard let pattern, let handler else {
            throw RecordError(
                .shape, "expected \(Self.expectedForms); found no \"\(pattern == nil ? "route" : "handler")\" key")
        }
        self.init(pattern: pattern, handler: handler, location: try RecordLocation.make(file: file, line: line))
    }
}

/// An API record: the protocol `api` declares its API at `version` (`@BeeHiveAPI("2.1.0")`), which is the version a
/// process serves when the image holding the record is loaded.
package struct APIRecord: Sendable, Hashable {
    /// The protocol's module-qualified name.
    package let api: String
    package let version: APIVersion
    package let location: RecordLocation?

    package init(api: String, version: APIVersion, location: RecordLocation? = nil) {
        self.api = api
        self.version = version
        self.location = location
    }

    /// The form, for messages.
    package static let expectedForms = #"{"api":"<protocol>","version":"<MAJOR.MINOR.PATCH>"[,"file":"…","line":…]}"#

    /// Reads an API record from its parsed form.
    package init(_ parsed: ParsedRecord) throws(RecordError) {
        guard case .object(let fields) = parsed else {
            throw RecordError(.shape, "expected \(Self.expectedForms); found a bare string")
        }
        var api: String?
        var version: APIVersion?
        var file: String?
        var line: Int?
        for field in fields {
            switch field.key {
            case "api": api = try field.nonEmptyString()
            case "version": version = try field.version()
            default:
                guard try RecordLocation.read(field, file: &file, line: &line) else {
                    throw RecordError(.shape, "expected only the keys api, version, file, line; found \"\(field.key)\"")
                }
            }
        }
        guard let api, let version else {
            throw RecordError(
                .shape, "expected \(Self.expectedForms); found no \"\(api == nil ? "api" : "version")\" key")
        }
        self.init(api: api, version: version, location: try RecordLocation.make(file: file, line: line))
    }
}

extension RecordField {
    /// The field's value as a version (`"2.1.0"`, ``APIVersion``).
    fileprivate func version() throws(RecordError) -> APIVersion {
        guard case .string(let text) = value, let version = APIVersion(text) else {
            throw RecordError(.shape, "expected a version (\(APIVersion.expectedForm)) for \"\(key)\"; found \(value)")
        }
        return version
    }

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
