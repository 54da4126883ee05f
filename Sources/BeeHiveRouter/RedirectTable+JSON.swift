import BeeHive
internal import _BeeHiveFileFormats

extension RedirectTable {
    /// Loads a table from a JSON document, keeping every valid entry and recording the others in ``issues``.
    ///
    /// The document is an object with
    /// - `"redirects"` (required): an array of objects, each with string members `"from"` (a route pattern with
    ///   a scheme) and `"to"` (a URL template, see ``RedirectRule``);
    /// - `"version"` (optional): must be `1`;
    /// - `"maxHops"` (optional): an integer from 1 to ``maximumHopsLimit`` (64), the longest redirect chain
    ///   followed (default 16).
    ///
    /// An entry that is not an object, lacks `"from"` or `"to"`, has a non-string value, an invalid pattern or
    /// template, or a source that collides with an earlier entry is skipped and reported in ``issues`` as
    /// `"<source>, redirects[<index>]: expected …, found …"`.
    ///
    /// ```swift
    /// let table = try RedirectTable(json: Array(text.utf8), source: "redirects.json")
    /// table.rules.count    // the good entries
    /// table.issues         // one RouterError per bad entry
    /// ```
    ///
    /// - Parameters:
    ///   - json: The JSON document's bytes (UTF-8): a `[UInt8]`, or Foundation's `Data`.
    ///   - source: A name for the document used in messages, such as its file name.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedRedirectFile`` when the data is not JSON,
    ///   is not an object, has no `"redirects"` array, or has a bad `"version"` or `"maxHops"`.
    public init(json: some Collection<UInt8>, source: String = "redirect data") throws(RouterError) {
        let bytes = Array(json)
        let parsed = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileSyntaxError) in try JSONFileReader.read(buffer) }.mapError { error in
                RouterError(
                    .malformedRedirectFile,
                    "\(source): expected a JSON document, found data that does not parse (\(error.describe(in: buffer)))"
                )
            }
        }
        let document = try parsed.get()
        guard case .dictionary(let object) = document else {
            throw RouterError(
                .malformedRedirectFile,
                "\(source): expected a JSON object with a \"redirects\" array, found \(Self.describe(document))"
            )
        }
        if let repeated = object.repeatedKey {
            throw RouterError(
                .malformedRedirectFile,
                "\(source): expected each member once; found \"\(FileValue.shortened(repeated))\" more than once")
        }
        if let version = object.value(forKey: "version") {
            guard Self.integer(version) == 1 else {
                throw RouterError(
                    .malformedRedirectFile,
                    "\(source): expected \"version\" to be 1, found \(Self.describe(version))"
                )
            }
        }
        var maximumHops = Self.defaultMaximumHops
        if let hops = object.value(forKey: "maxHops") {
            guard let value = Self.integer(hops), (1...Self.maximumHopsLimit).contains(value) else {
                throw RouterError(
                    .malformedRedirectFile,
                    "\(source): expected \"maxHops\" to be an integer from 1 to \(Self.maximumHopsLimit), found "
                        + Self.describe(hops)
                )
            }
            maximumHops = value
        }
        guard let entries = object.value(forKey: "redirects") else {
            let keys = object.map { "\"\(FileValue.shortened($0.key))\"" }.joined(separator: ", ")
            throw RouterError(
                .malformedRedirectFile,
                "\(source): expected a \"redirects\" array, found no such member "
                    + "(members: \(keys.isEmpty ? "none" : keys))"
            )
        }
        guard case .array(let list) = entries else {
            throw RouterError(
                .malformedRedirectFile,
                "\(source): expected \"redirects\" to be an array, found \(Self.describe(entries))"
            )
        }

        var rules: [(index: Int, rule: RedirectRule)] = []
        var issues: [RouterError] = []
        for (index, entry) in list.enumerated() {
            let place = "\(source), redirects[\(index)]"
            func issue(_ text: String) {
                issues.append(RouterError(.malformedRedirectEntry, "\(place): \(text)"))
            }
            guard case .dictionary(let fields) = entry else {
                issue("expected an object with \"from\" and \"to\" strings, found \(Self.describe(entry))")
                continue
            }
            if let repeated = fields.repeatedKey {
                issue("expected each member once; found \"\(FileValue.shortened(repeated))\" more than once")
                continue
            }
            guard let fromValue = fields.value(forKey: "from"), let toValue = fields.value(forKey: "to") else {
                let missing = ["from", "to"].filter { fields.value(forKey: $0) == nil }.map { "\"\($0)\"" }
                issue("expected \"from\" and \"to\" strings, found no \(missing.joined(separator: " or "))")
                continue
            }
            guard case .string(let from) = fromValue else {
                issue("expected \"from\" to be a string pattern, found \(Self.describe(fromValue))")
                continue
            }
            guard case .string(let to) = toValue else {
                issue("expected \"to\" to be a string URL, found \(Self.describe(toValue))")
                continue
            }
            do {
                rules.append((index, try RedirectRule(from: from, to: to)))
            } catch {
                issue(error.message)
            }
        }
        self.init(validRules: rules, issues: issues, maximumHops: maximumHops, source: source)
    }

    /// Loads a table from a JSON file; see ``init(json:source:)`` for the format and the handling of bad entries.
    ///
    /// ```swift
    /// let table = try RedirectTable(contentsOfFile: "/etc/app/redirects.json")
    /// ```
    /// - Parameter path: The file's path, quoted in every message. The file is read as configuration files are
    ///   (at most 4 MiB; a FIFO or a device fails rather than hangs).
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedRedirectFile`` when the file cannot be read
    ///   or is not a valid document.
    public init(contentsOfFile path: String) throws(RouterError) {
        let bytes: [UInt8]
        do throws(FileReader.ReadFailure) {
            bytes = try FileReader.contents(ofFile: path)
        } catch {
            throw RouterError(.malformedRedirectFile, "\(path): \(error.message)")
        }
        try self.init(json: bytes, source: path)
    }

    /// An integer: a JSON number without a fraction that fits in 64 bits.
    private static func integer(_ value: FileValue) -> Int? {
        switch value {
        case .integer(let integer): integer
        case .real(let real): Int(exactly: real)
        default: nil
        }
    }

    /// Names a JSON value's kind and shows it briefly, for messages ("number 42", "an array").
    private static func describe(_ value: FileValue) -> String {
        switch value {
        case .null: "null"
        case .string(let text): "string \"\(FileValue.shortened(text))\""
        case .bool(let flag): "boolean \(flag)"
        case .integer(let integer): "number \(integer)"
        case .real(let real): "number \(real)"
        case .array(let array): "an array of \(array.count) element\(array.count == 1 ? "" : "s")"
        case .dictionary: "an object"
        default: value.description
        }
    }
}
