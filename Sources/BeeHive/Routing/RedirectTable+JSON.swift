import Foundation

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
    /// let table = try RedirectTable(json: data, source: "redirects.json")
    /// table.rules.count    // the good entries
    /// table.issues         // one RouterError per bad entry
    /// ```
    ///
    /// - Parameters:
    ///   - json: The JSON document.
    ///   - source: A name for the document used in messages, such as its file name.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedRedirectFile`` when the data is not JSON,
    ///   is not an object, has no `"redirects"` array, or has a bad `"version"` or `"maxHops"`.
    public init(json: Data, source: String = "redirect data") throws(RouterError) {
        let document: Any
        do {
            document = try JSONSerialization.jsonObject(with: json, options: [])
        } catch {
            throw RouterError(
                .malformedRedirectFile,
                "\(source): expected a JSON document, found data that does not parse (\(error.localizedDescription))"
            )
        }
        guard let object = document as? [String: Any] else {
            throw RouterError(
                .malformedRedirectFile,
                "\(source): expected a JSON object with a \"redirects\" array, found \(Self.describe(document))"
            )
        }
        if let version = object["version"] {
            guard Self.integer(version) == 1 else {
                throw RouterError(
                    .malformedRedirectFile,
                    "\(source): expected \"version\" to be 1, found \(Self.describe(version))"
                )
            }
        }
        var maximumHops = Self.defaultMaximumHops
        if let hops = object["maxHops"] {
            guard let value = Self.integer(hops), (1...Self.maximumHopsLimit).contains(value) else {
                throw RouterError(
                    .malformedRedirectFile,
                    "\(source): expected \"maxHops\" to be an integer from 1 to \(Self.maximumHopsLimit), found "
                        + Self.describe(hops)
                )
            }
            maximumHops = value
        }
        guard let entries = object["redirects"] else {
            let keys = object.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw RouterError(
                .malformedRedirectFile,
                "\(source): expected a \"redirects\" array, found no such member "
                    + "(members: \(keys.isEmpty ? "none" : keys))"
            )
        }
        guard let list = entries as? [Any] else {
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
            guard let fields = entry as? [String: Any] else {
                issue("expected an object with \"from\" and \"to\" strings, found \(Self.describe(entry))")
                continue
            }
            guard let fromValue = fields["from"], let toValue = fields["to"] else {
                let missing = ["from", "to"].filter { fields[$0] == nil }.map { "\"\($0)\"" }
                issue("expected \"from\" and \"to\" strings, found no \(missing.joined(separator: " or "))")
                continue
            }
            guard let from = fromValue as? String else {
                issue("expected \"from\" to be a string pattern, found \(Self.describe(fromValue))")
                continue
            }
            guard let to = toValue as? String else {
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
    /// - Parameter file: The file URL; its path is quoted in every message.
    /// - Throws: ``RouterError`` with code ``RouterError/Code/malformedRedirectFile`` when the file cannot be read
    ///   or is not a valid document.
    public init(contentsOf file: URL) throws(RouterError) {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw RouterError(
                .malformedRedirectFile,
                "\(file.path): expected a readable redirect file, found an error (\(error.localizedDescription))"
            )
        }
        try self.init(json: data, source: file.path)
    }

    private static func integer(_ value: Any) -> Int? {
        guard !isBoolean(value), let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, let integer = Int(exactly: double) else { return nil }
        return integer
    }

    /// Whether a parsed JSON value is `true` or `false`: Foundation returns both Booleans and numbers as
    /// `NSNumber`, and `1 as? Bool` succeeds, so the number's type code (`c`) is what tells them apart.
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    /// Names a JSON value's kind and shows it briefly, for messages ("number 42", "an array").
    private static func describe(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let text as String: return "string \"\(text)\""
        case let number as NSNumber where isBoolean(number): return "boolean \(number.boolValue)"
        case let number as NSNumber: return "number \(number)"
        case let array as [Any]: return "an array of \(array.count) element\(array.count == 1 ? "" : "s")"
        case is [String: Any]: return "an object"
        default: return "\(type(of: value))"
        }
    }
}
