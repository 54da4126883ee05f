internal import _BeeHiveFileFormats

/// Reads single settings from BeeHive's configuration files, for the products that own them: `BeeHive.plist`'s
/// `URLGlobalScheme` (BHRouter's global scheme) is the router's, not the registry's.
package enum ConfigurationFile {
    /// The string under a key of the root dictionary of a property list or JSON file.
    ///
    /// - Parameters:
    ///   - key: The root key, compared by its UTF-8 bytes.
    ///   - path: The file's path.
    /// - Returns: The string, or `nil` when the root has no such key.
    /// - Throws: ``HiveError`` `fileNotFound` when the file cannot be read, `malformedFile` when it is not a property
    ///   list or JSON, its root is not a dictionary, or the value under `key` is not a non-empty string.
    package static func string(forKey key: String, inFile path: String) throws(HiveError) -> String? {
        let bytes: [UInt8]
        do throws(FileReader.ReadFailure) {
            bytes = try FileReader.contents(ofFile: path)
        } catch {
            throw HiveError(error.isUnreadable ? .fileNotFound : .malformedFile, error.message, source: .file(path))
        }
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileSyntaxError) in try FileReader.read(buffer) }
        }
        let root: FileValue
        switch result {
        case .success(let value): root = value
        case .failure(let error):
            let place = bytes.withUnsafeBytes { error.describe(in: $0) }
            throw HiveError(
                .malformedFile,
                "expected an XML or binary property list or JSON; cannot parse it as \(error.format): \(place)",
                source: .file(path))
        }
        guard case .dictionary(let fields) = root else {
            throw HiveError(.malformedFile, "expected a dictionary at the root; found \(root)", source: .file(path))
        }
        switch fields.value(forKey: key) {
        case nil: return nil
        case .string(let text)? where !text.isEmpty: return text
        case let value?:
            throw HiveError(
                .malformedFile, "expected a non-empty string under \"\(key)\"; found \(value)", source: .file(path))
        }
    }
}
