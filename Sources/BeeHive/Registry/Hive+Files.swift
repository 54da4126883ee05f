import FoundationEssentials

extension Hive {
    /// Registers the services listed in a file: BeeHive's `BHService.plist`, or the same as JSON.
    ///
    /// The file is an array of entries `{service, impl}` (plus an optional `name`), as an XML or
    /// binary property list or as JSON; the format is read from the content. A dictionary with the
    /// array under `services` is also accepted.
    ///
    /// ```swift
    /// try hive.loadServices(from: "/etc/app/BHService.plist")
    /// ```
    /// Each bad entry gives a diagnostic naming the file and the entry's index; every good entry is
    /// registered.
    /// - Parameter path: The file's path.
    /// - Returns: The problems found in this file (also in ``diagnostics``).
    /// - Throws: ``HiveError`` `fileNotFound` or `malformedFile` when nothing could be read; in strict
    ///   mode, the first rejected entry after registering the good ones.
    @discardableResult
    public func loadServices(from path: String) throws(HiveError) -> [Diagnostic] {
        let data = try readFile(path)
        // Fast path: a well-formed array of entries decodes straight into typed values.
        if let entries = try? FileValue.decoder(for: data).decode([ServiceFileEntry].self, from: data) {
            let registrations = entries.enumerated().map { index, entry in
                (
                    ServiceRegistration(
                        service: entry.service, name: entry.name, implementation: entry.impl,
                        source: .file(path, index: index)),
                    Provider.typeName(entry.impl)
                )
            }
            let problems = add(services: registrations)
            try failIfStrict(problems)
            return problems
        }
        // Otherwise read every entry leniently, to say what is wrong with each.
        let root = try parseConfiguration(data, path)
        let list: [FileValue]
        switch root {
        case .array(let entries): list = entries
        case .dictionary(let d):
            guard case .array(let entries)? = d["services"] else { fallthrough }
            list = entries
        default:
            throw fileError(.malformedFile, path, "expected an array of {service, impl} entries; found \(root.kind)")
        }
        var problems: [Diagnostic] = []
        var registrations: [(ServiceRegistration, Provider)] = []
        for (index, value) in list.enumerated() {
            let source = RegistrationSource.file(path, index: index)
            do {
                let entry = try FileEntry(value, expected: "a dictionary {service, impl[, name]}")
                let service = try entry.string("service")
                let impl = try entry.string("impl")
                let name = try entry.optionalString("name")
                try entry.rejectUnknownKeys(["service", "impl", "name"])
                registrations.append(
                    (
                        ServiceRegistration(service: service, name: name, implementation: impl, source: source),
                        .typeName(impl)
                    ))
            } catch {
                problems.append(Diagnostic(.error, HiveError(.malformedEntry, error.message, source: source)))
            }
        }
        problems += add(services: registrations)
        try failIfStrict(problems)
        return problems
    }

    /// Declares the modules listed in a file: BeeHive's `BeeHive.plist`, or the same as JSON.
    ///
    /// The file is a dictionary whose `moduleClasses` array holds `{moduleClass, moduleLevel,
    /// modulePriority}` entries (plus an optional `moduleAsync`). Levels are 0 (basic), 1 (normal),
    /// 2 (application) or those names; priorities are integers (strings of digits are accepted, as
    /// BeeHive's plists often have them).
    ///
    /// ```swift
    /// try hive.loadModules(from: "/etc/app/BeeHive.plist")
    /// ```
    /// - Parameter path: The file's path.
    /// - Returns: The problems found in this file (also in ``diagnostics``).
    /// - Throws: ``HiveError`` `fileNotFound` or `malformedFile` when nothing could be read; in strict
    ///   mode, the first rejected entry after declaring the good ones.
    @discardableResult
    public func loadModules(from path: String) throws(HiveError) -> [Diagnostic] {
        let root = try parseConfiguration(readFile(path), path)
        guard case .dictionary(let d) = root, case .array(let list)? = d["moduleClasses"] else {
            throw fileError(
                .malformedFile, path, "expected a dictionary with a moduleClasses array; found \(root.description)")
        }
        var problems: [Diagnostic] = []
        var modules: [ModuleDeclaration] = []
        for (index, value) in list.enumerated() {
            let source = RegistrationSource.file(path, index: index)
            do {
                let entry = try FileEntry(value, expected: "a dictionary {moduleClass, moduleLevel, modulePriority}")
                let name = try entry.string("moduleClass")
                let level = try entry.level("moduleLevel") ?? .normal
                let priority = try entry.integer("modulePriority") ?? 0
                let isAsync = try entry.bool("moduleAsync") ?? false
                try entry.rejectUnknownKeys(["moduleClass", "moduleLevel", "modulePriority", "moduleAsync"])
                modules.append(
                    ModuleDeclaration(name: name, level: level, priority: priority, isAsync: isAsync, source: source))
            } catch {
                problems.append(Diagnostic(.error, HiveError(.malformedEntry, error.message, source: source)))
            }
        }
        problems += add(services: [], modules: modules)
        try failIfStrict(problems)
        return problems
    }

    private func fileError(_ code: HiveError.Code, _ path: String, _ message: String) -> HiveError {
        let error = HiveError(code, message, source: .file(path))
        record([Diagnostic(.error, error)])
        return error
    }

    private func readFile(_ path: String) throws(HiveError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw fileError(
                .fileNotFound, path, "expected a readable configuration file; cannot read it: \(Self.reason(error))")
        }
    }

    private func parseConfiguration(_ data: Data, _ path: String) throws(HiveError) -> FileValue {
        do {
            return try FileValue.read(data)
        } catch {
            throw fileError(
                .malformedFile, path,
                "expected an XML or binary property list or JSON; cannot parse it: \(Self.reason(error))")
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let decoding = error as? DecodingError {
            switch decoding {
            case .dataCorrupted(let context): return context.underlyingError.map { "\($0)" } ?? context.debugDescription
            default: return "\(decoding)"
            }
        }
        if let cocoa = error as? CocoaError, let underlying = cocoa.userInfo["NSUnderlyingError"] {
            return "\(underlying)"
        }
        return "\(error)"
    }
}

/// A well-formed `BHService.plist` entry: the fast path of ``Hive/loadServices(from:)``. Anything else
/// (an unknown key, an empty string, another type) fails, and the lenient path reports it.
private struct ServiceFileEntry: Decodable {
    let service: String
    let impl: String
    let name: String?

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        guard container.allKeys.allSatisfy({ ["service", "impl", "name"].contains($0.stringValue) }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown key"))
        }
        service = try container.decode(String.self, forKey: Key(stringValue: "service"))
        impl = try container.decode(String.self, forKey: Key(stringValue: "impl"))
        name = try container.decodeIfPresent(String.self, forKey: Key(stringValue: "name"))
        guard !service.isEmpty, !impl.isEmpty, name?.isEmpty != true else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "empty string"))
        }
    }
}

/// An entry of a configuration file, with typed readers whose errors say what was expected.
private struct FileEntry {
    struct Problem: Error { let message: String }

    let fields: [String: FileValue]

    init(_ value: FileValue, expected: String) throws(Problem) {
        guard case .dictionary(let fields) = value else {
            throw Problem(message: "expected \(expected); found \(value.kind)")
        }
        self.fields = fields
    }

    func string(_ key: String) throws(Problem) -> String {
        guard let value = fields[key] else {
            throw Problem(
                message: "expected a \"\(key)\" key; found keys \(fields.keys.sorted().joined(separator: ", "))")
        }
        guard case .string(let s) = value, !s.isEmpty else {
            throw Problem(message: "expected a non-empty string for \"\(key)\"; found \(value)")
        }
        return s
    }

    func optionalString(_ key: String) throws(Problem) -> String? {
        fields[key] == nil ? nil : try string(key)
    }

    func integer(_ key: String) throws(Problem) -> Int? {
        guard let value = fields[key] else { return nil }
        if case .integer(let i) = value { return i }
        if case .string(let s) = value, let i = Int(s) { return i }
        throw Problem(message: "expected an integer for \"\(key)\"; found \(value)")
    }

    func bool(_ key: String) throws(Problem) -> Bool? {
        switch fields[key] {
        case nil: return nil
        case .bool(let b)?: return b
        case let value?: throw Problem(message: "expected true or false for \"\(key)\"; found \(value)")
        }
    }

    func level(_ key: String) throws(Problem) -> ModuleLevel? {
        guard let value = fields[key] else { return nil }
        if case .integer(let i) = value { return ModuleLevel(rawValue: i) }
        if case .string(let s) = value {
            if let i = Int(s) { return ModuleLevel(rawValue: i) }
            if let level = ModuleLevel(named: s) { return level }
        }
        throw Problem(
            message: "expected a level 0, 1, 2, basic, normal, capability, feature or application for \"\(key)\"; "
                + "found \(value)")
    }

    func rejectUnknownKeys(_ known: Set<String>) throws(Problem) {
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw Problem(
                message: "expected only the keys \(known.sorted().joined(separator: ", ")); found \"\(unknown)\"")
        }
    }
}
