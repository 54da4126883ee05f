internal import _BeeHiveFileFormats

extension Hive {
    /// Registers the services listed in a file: BeeHive's `BHService.plist`, or the same as JSON.
    ///
    /// The file is an array of entries `{service, impl}` (plus an optional `name`, an integer `rank` and a
    /// dictionary of strings `properties`, see ``ServiceRegistration/rank``), as an XML or binary property list or as
    /// JSON; the format is read from the content. A dictionary with the
    /// array under `services` is also accepted, and so is BeeHive's dictionary form `{protocol: class}`.
    ///
    /// ```swift
    /// try hive.loadServices(from: "/etc/app/BHService.plist")
    /// ```
    /// Each bad entry (a missing or unknown key, a key given twice, a value of another type such as
    /// `null`, a `<date>` or `<data>`) gives a diagnostic naming the file, the entry's index and the key;
    /// every good entry is registered. Keys compare by their UTF-8 bytes. Files are read by BeeHive's own
    /// readers (see `FileReader`): at most 4 MiB, nesting at most 64 levels, no cycles. The work is linear in the
    /// file: it is parsed and its registrations built outside the registry's lock, then published in one step; a
    /// duplicate costs O(1), and the duplicates of one service are listed one by one up to 10, then counted in one
    /// more diagnostic.
    /// - Parameter path: The file's path.
    /// - Returns: The problems found in this file (also in ``diagnostics``).
    /// - Throws: ``HiveError`` `fileNotFound` or `malformedFile` when nothing could be read; in strict
    ///   mode, the first rejected entry after registering the good ones.
    @discardableResult
    public func loadServices(from path: String) throws(HiveError) -> [Diagnostic] {
        let root = try readConfiguration(path)
        let expected =
            "an array of {service, impl} entries (or a dictionary with one under \"services\", or a dictionary "
            + "{protocol: class})"
        let list: [FileValue]
        switch root {
        case .array(let entries): list = entries
        case .dictionary(let fields):
            if let entries = Self.serviceMapEntries(fields) {
                list = entries
            } else {
                list = try rootArray(fields, key: "services", expected: expected, path, root)
            }
        default: throw fileError(.malformedFile, path, "expected \(expected); found \(root)")
        }
        var problems: [Diagnostic] = []
        var registrations: [ServiceEntry] = []
        for (index, value) in list.enumerated() {
            let source = RegistrationSource.file(path, index: index)
            do throws(FileEntry.Problem) {
                let entry = try FileEntry(
                    value, expected: "a dictionary {service, impl[, name, rank, properties]}",
                    keys: ["service", "impl", "name", "rank", "properties"])
                let service = try entry.string("service")
                let impl = try entry.string("impl")
                let name = try entry.optionalString("name")
                let rank = try entry.integer("rank") ?? 0
                let properties = try entry.strings("properties")
                try entry.rejectUnknownKeys()
                registrations.append(
                    ServiceEntry(
                        ServiceRegistration(
                            service: service, name: name, implementation: impl, source: source, rank: rank,
                            properties: properties),
                        .typeName(impl)))
            } catch {
                problems.append(Diagnostic(.error, HiveError(error.code, error.message, source: source)))
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
    /// BeeHive's plists often have them, and so are reals without a fraction).
    ///
    /// ```swift
    /// try hive.loadModules(from: "/etc/app/BeeHive.plist")
    /// ```
    /// Each bad entry gives a diagnostic naming the file, the entry's index and the key; every good
    /// entry is declared.
    /// - Parameter path: The file's path.
    /// - Returns: The problems found in this file (also in ``diagnostics``).
    /// - Throws: ``HiveError`` `fileNotFound` or `malformedFile` when nothing could be read; in strict
    ///   mode, the first rejected entry after declaring the good ones.
    @discardableResult
    public func loadModules(from path: String) throws(HiveError) -> [Diagnostic] {
        let root = try readConfiguration(path)
        let expected = "a dictionary with a moduleClasses array"
        guard case .dictionary(let fields) = root else {
            throw fileError(.malformedFile, path, "expected \(expected); found \(root)")
        }
        let list = try rootArray(fields, key: "moduleClasses", expected: expected, path, root)
        var problems: [Diagnostic] = []
        var modules: [ModuleDeclaration] = []
        let keys = ["moduleClass", "moduleLevel", "modulePriority", "moduleAsync"]
        for (index, value) in list.enumerated() {
            let source = RegistrationSource.file(path, index: index)
            do throws(FileEntry.Problem) {
                let entry = try FileEntry(
                    value, expected: "a dictionary {moduleClass, moduleLevel, modulePriority}", keys: keys)
                let name = try entry.string("moduleClass")
                let level = try entry.level("moduleLevel") ?? .normal
                let priority = try entry.integer("modulePriority") ?? 0
                let isAsync = try entry.bool("moduleAsync") ?? false
                try entry.rejectUnknownKeys()
                modules.append(
                    ModuleDeclaration(name: name, level: level, priority: priority, isAsync: isAsync, source: source))
            } catch {
                problems.append(Diagnostic(.error, HiveError(error.code, error.message, source: source)))
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

    /// The array under `key` of the file's root dictionary, which must hold it once.
    private func rootArray(
        _ fields: [FileField], key: String, expected: String, _ path: String, _ root: FileValue
    ) throws(HiveError) -> [FileValue] {
        let count = fields.count(ofKey: key)
        guard count <= 1 else {
            throw fileError(
                .malformedFile, path, "expected \(expected); found the key \"\(key)\" \(count) times in the root")
        }
        switch fields.value(forKey: key) {
        case .array(let list)?: return list
        case let value?:
            throw fileError(.malformedFile, path, "expected \(expected); found \(value.kind) under \"\(key)\"")
        case nil: throw fileError(.malformedFile, path, "expected \(expected); found \(root)")
        }
    }

    /// The root value of the configuration file at `path`.
    private func readConfiguration(_ path: String) throws(HiveError) -> FileValue {
        let bytes = try readFile(path)
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileSyntaxError) in try FileReader.read(buffer) }
        }
        switch result {
        case .success(let root): return root
        case .failure(let error):
            let place = bytes.withUnsafeBytes { error.describe(in: $0) }
            throw fileError(
                .malformedFile, path,
                "expected an XML or binary property list or JSON; cannot parse it as \(error.format): \(place)")
        }
    }

    /// The bytes of the file at `path`; see ``FileReader/contents(ofFile:)``.
    private func readFile(_ path: String) throws(HiveError) -> [UInt8] {
        do throws(FileReader.ReadFailure) {
            return try FileReader.contents(ofFile: path)
        } catch {
            throw fileError(error.isUnreadable ? .fileNotFound : .malformedFile, path, error.message)
        }
    }
}

/// An entry of a configuration file, with typed readers whose errors say what was expected and what was
/// found, and name the key.
private struct FileEntry {
    /// Why an entry is rejected.
    struct Problem: Error {
        let code: HiveError.Code
        let message: String

        init(_ message: String, found value: FileValue? = nil) {
            if case .invalid(let invalid)? = value, invalid.isUTF8Problem {
                code = .invalidUTF8
            } else {
                code = .malformedEntry
            }
            self.message = message
        }
    }

    let fields: [FileField]

    /// The entry `value`, which must be a dictionary whose keys are among `keys`, each at most once.
    init(_ value: FileValue, expected: String, keys: [String]) throws(Problem) {
        guard case .dictionary(let fields) = value else {
            switch value {
            case .string, .integer, .real, .bool:
                throw Problem("expected \(expected); found \(value.kind) \(value)")
            default: throw Problem("expected \(expected); found \(value)", found: value)
            }
        }
        if let repeated = fields.repeatedKey {
            let count = fields.count(ofKey: repeated)
            throw Problem(
                "expected each key once; found \"\(FileValue.shortened(repeated))\" \(count) times (keys compare "
                    + "by their UTF-8 bytes)")
        }
        self.fields = fields
        self.keys = keys
    }

    /// The keys an entry may have.
    private let keys: [String]

    /// The names of the keys, for messages.
    private var keyList: String {
        guard !fields.isEmpty else { return "no keys" }
        let names = fields.prefix(10).map { FileValue.shortened($0.key) }.joined(separator: ", ")
        return "keys " + names + (fields.count > 10 ? ", … (\(fields.count) keys)" : "")
    }

    /// Rejects a key other than the known ones. Called after the known keys were read, so that a message
    /// names what is missing or wrong before what is extra.
    func rejectUnknownKeys() throws(Problem) {
        if let unknown = fields.first(where: { field in !keys.contains { field.key.hasSameUTF8(as: $0) } }) {
            throw Problem(
                "expected only the keys \(keys.sorted().joined(separator: ", ")); found "
                    + "\"\(FileValue.shortened(unknown.key))\"")
        }
    }

    /// A required non-empty string.
    func string(_ key: String) throws(Problem) -> String {
        guard let value = fields.value(forKey: key) else {
            throw Problem("expected a \"\(key)\" key; found \(keyList)")
        }
        guard case .string(let s) = value, !s.isEmpty else {
            throw Problem("expected a non-empty string for \"\(key)\"; found \(value)", found: value)
        }
        return s
    }

    /// An optional non-empty string.
    func optionalString(_ key: String) throws(Problem) -> String? {
        fields.value(forKey: key) == nil ? nil : try string(key)
    }

    /// An optional integer: an integer, a real without a fraction, or a string of digits.
    func integer(_ key: String) throws(Problem) -> Int? {
        guard let value = fields.value(forKey: key) else { return nil }
        if let i = Self.integer(value) { return i }
        throw Problem("expected an integer for \"\(key)\"; found \(value)", found: value)
    }

    private static func integer(_ value: FileValue) -> Int? {
        switch value {
        case .integer(let i): i
        case .real(let d): Int(exactly: d)
        case .string(let s): Int(s)
        default: nil
        }
    }

    /// An optional dictionary of strings; empty when the key is absent.
    func strings(_ key: String) throws(Problem) -> [String: String] {
        guard let value = fields.value(forKey: key) else { return [:] }
        guard case .dictionary(let pairs) = value else {
            throw Problem("expected a dictionary of strings for \"\(key)\"; found \(value)", found: value)
        }
        if let repeated = pairs.repeatedKey {
            throw Problem(
                "expected each key once in \"\(key)\"; found \"\(FileValue.shortened(repeated))\" again (keys compare "
                    + "by their UTF-8 bytes)")
        }
        var strings: [String: String] = [:]
        for pair in pairs {
            guard case .string(let s) = pair.value else {
                throw Problem(
                    "expected a string for \"\(FileValue.shortened(pair.key))\" in \"\(key)\"; found \(pair.value)",
                    found: pair.value)
            }
            strings[pair.key] = s
        }
        return strings
    }

    /// An optional boolean.
    func bool(_ key: String) throws(Problem) -> Bool? {
        switch fields.value(forKey: key) {
        case nil: return nil
        case .bool(let b)?: return b
        case let value?: throw Problem("expected true or false for \"\(key)\"; found \(value)", found: value)
        }
    }

    /// An optional module level: an integer (as ``integer(_:)`` reads it) or a level's name.
    func level(_ key: String) throws(Problem) -> ModuleLevel? {
        guard let value = fields.value(forKey: key) else { return nil }
        if let i = Self.integer(value) { return ModuleLevel(rawValue: i) }
        if case .string(let s) = value, let level = ModuleLevel(named: s) { return level }
        throw Problem(
            "expected a level 0, 1, 2, basic, normal, capability, feature or application for \"\(key)\"; "
                + "found \(value)", found: value)
    }
}
