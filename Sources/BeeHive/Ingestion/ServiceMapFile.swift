internal import _BeeHiveFileFormats

extension Hive {
    /// The entries of BeeHive's dictionary form of `BHService.plist`, `{protocol: class}` (the form its README shows),
    /// as the `{service, impl}` entries of the array form, so that both are read and diagnosed by one reader.
    ///
    /// A root dictionary with a `services` key is the wrapped array form (`{services: [{service, impl}]}`), not a
    /// map: this returns `nil` for it. Every other root dictionary is a map, an empty one included (no services). A
    /// value that is not a non-empty string is left as it is: the entry reader then rejects that entry alone, naming
    /// its index (its position in the file) and the key `impl`, and every other entry still registers. Keys repeated
    /// in the file are kept as separate entries: the second registration of a service is a duplicate, as in the
    /// array form. Linear in the number of entries.
    ///
    /// - Parameter fields: The root dictionary's pairs, in file order.
    /// - Returns: One `{service: <key>, impl: <value>}` entry per pair, or `nil` for the wrapped array form.
    static func serviceMapEntries(_ fields: [FileField]) -> [FileValue]? {
        guard fields.value(forKey: "services") == nil else { return nil }
        return fields.map { field in
            .dictionary([
                FileField(key: "service", value: .string(field.key)), FileField(key: "impl", value: field.value),
            ])
        }
    }
}
