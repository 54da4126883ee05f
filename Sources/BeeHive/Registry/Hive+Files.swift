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
        let root = try readConfiguration(path)
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
        let root = try readConfiguration(path)
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

    private func readConfiguration(_ path: String) throws(HiveError) -> FileValue {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw fileError(
                .fileNotFound, path, "expected a readable configuration file; cannot read it: \(Self.reason(error))")
        }
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
