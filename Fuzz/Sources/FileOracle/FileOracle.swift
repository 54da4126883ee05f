import BeeHive
import Foundation
import FuzzCheck
import Logging

/// A value of a configuration file as a reference reader sees it: Foundation's `JSONSerialization` for JSON, and
/// its `PropertyListSerialization` (CoreFoundation's parser, not the one `Hive` uses) for property lists.
public indirect enum FileValue: CustomStringConvertible {
    case string(String)
    case integer(Int)
    case real(Double)
    case bool(Bool)
    case null
    case date
    case data
    case other(String)
    case array([FileValue])
    case dictionary([String: FileValue])

    /// Reads a file the way `Hive` chooses its format: JSON when the first byte that is not whitespace (or part
    /// of a byte order mark) is `{` or `[`, else an XML or binary property list. `nil` when it does not parse.
    public static func read(_ data: Data) -> FileValue? {
        // Foundation reads UTF-16 and UTF-32 text without a byte-order mark (a NUL among the first four bytes);
        // BeeHive reads UTF-8 only and refuses such a file with that reason.
        if !data.starts(with: Array("bplist".utf8)), data.prefix(4).contains(0) { return nil }
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])).map(FileValue.init)
        }
        // Foundation's binary reader crashes (a null dereference while bridging) on some files with sets; BeeHive's
        // reader makes a set cost its entry. Such files have no reference reading.
        if hasBinarySetObject(data) { return nil }
        var format = PropertyListSerialization.PropertyListFormat.xml
        guard let value = try? PropertyListSerialization.propertyList(from: data, options: [], format: &format),
            format != .openStep  // not a format BeeHive reads
        else { return nil }
        return FileValue(value)
    }

    init(_ value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case is NSNull: self = .null
        case is Date: self = .date
        case is Data: self = .data
        case let decimal as NSDecimalNumber:
            // JSONSerialization reads numbers near or beyond the ends of Int64 as decimals. One beyond them is
            // no integer, although its nearest Double may be Int64.min.
            if let integer = Int(decimal.description) {
                self = .integer(integer)
            } else if decimal.description.allSatisfy({ $0.isNumber || $0 == "-" }) {
                self = .other("an integer beyond 64 bits")
            } else {
                // `doubleValue` is not correctly rounded (-8446744073709550.808 gives …550, not the nearest
                // Double, …551); BeeHive's reader rounds correctly, as Swift's `Double(String)` does.
                self = .real(Double(decimal.description) ?? decimal.doubleValue)
            }
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c": self = .bool(number.boolValue)
            case "d", "f": self = .real(number.doubleValue)
            case "Q", "L", "I", "S":
                self = Int(exactly: number.uint64Value).map(FileValue.integer) ?? .real(number.doubleValue)
            default: self = .integer(number.intValue)
            }
        case let array as [Any]: self = .array(array.map(FileValue.init))
        case let dictionary as [AnyHashable: Any]:
            var result: [String: FileValue] = [:]
            for (key, value) in dictionary {
                guard let key = key.base as? String else {
                    self = .other("a dictionary with a key that is not a string")
                    return
                }
                result[key] = FileValue(value)
            }
            self = .dictionary(result)
        default: self = .other("\(type(of: value))")
        }
    }

    /// The integer a file means: integers, and reals without a fraction (decoders read `1.0` as 1).
    public var integer: Int? {
        switch self {
        case .integer(let value): value
        case .real(let value): value.rounded() == value ? Int(exactly: value) : nil
        default: nil
        }
    }

    /// How deeply arrays and dictionaries nest, 0 for a scalar.
    public var depth: Int {
        switch self {
        case .array(let values): 1 + (values.map(\.depth).max() ?? 0)
        case .dictionary(let values): 1 + (values.values.map(\.depth).max() ?? 0)
        default: 0
        }
    }

    public var description: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .null: "null"
        case .date: "a date"
        case .data: "data"
        case .other(let kind): kind
        case .array(let values): "[\(values.map(\.description).joined(separator: ", "))]"
        case .dictionary(let values):
            "{\(values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
        }
    }
}

/// Whether a binary property list's object table holds a set (marker `0xC_`), read from its trailer with every
/// offset checked; `false` for anything else, including a table too broken to walk.
func hasBinarySetObject(_ data: Data) -> Bool {
    let bytes = [UInt8](data)
    guard bytes.starts(with: Array("bplist".utf8)), bytes.count >= 40 else { return false }
    let trailer = bytes.count - 32
    func number(_ start: Int, _ size: Int) -> Int? {
        guard size > 0, size <= 8, start >= 0, start + size <= bytes.count else { return nil }
        let value = bytes[start..<start + size].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
    let offsetSize = Int(bytes[trailer + 6])
    guard let count = number(trailer + 8, 8), let table = number(trailer + 24, 8), count <= bytes.count,
        table < trailer
    else { return false }
    for index in 0..<count {
        guard let offset = number(table + index * offsetSize, offsetSize), offset < trailer else { return false }
        if bytes[offset] >> 4 == 0xC { return true }
    }
    return false
}

/// Whether a file rejected with `message` breaks a rule of its format that the reference reader does not enforce:
/// a trailing comma in JSON (`[1,]`, `{"a":1,}`: Foundation's reader accepts it, RFC 8259 does not), or any rule of
/// XML: CoreFoundation's plist parser skips what it does not need (the `<?xml?>` and `<!DOCTYPE>` declarations,
/// the `<plist>` element's attributes) and so accepts many files that are not XML, which BeeHive's reader refuses
/// with the place of the first error; likewise binary property lists of another version than `bplist00`, which
/// BeeHive refuses. BeeHive's readers follow the formats; such a file is not a disagreement (what a file that both
/// read registers is still compared).
public func isStricterThanReference(_ data: Data, message: String) -> Bool {
    if message.contains("as an XML property list") || message.contains("as a binary property list") { return true }
    guard message.contains("as JSON"), let range = message.range(of: "(at byte ") else { return false }
    let digits = message[range.upperBound...].prefix { $0.isNumber }
    guard let offset = Int(digits), offset < data.count else { return false }
    let bytes = [UInt8](data)
    guard bytes[offset] == UInt8(ascii: "]") || bytes[offset] == UInt8(ascii: "}") else { return false }
    let before = bytes[..<offset].last { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
    return before == UInt8(ascii: ",")
}

/// Whether the file's `<!DOCTYPE>` has a `>` inside a quoted literal. XML allows it (the declaration ends at the
/// first `>` outside quotes, as BeeHive's reader ends it); CoreFoundation ends the declaration at the first `>`
/// wherever it stands, and so reads a different document, so it is no judge of such files.
public func hasQuotedAngleBracketInDoctype(_ data: Data) -> Bool {
    let bytes = [UInt8](data)
    let marker = Array("<!DOCTYPE".utf8)
    guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: marker) }) else { return false }
    var quote: UInt8?
    for byte in bytes[(start + marker.count)...] {
        if let open = quote {
            if byte == open { quote = nil } else if byte == UInt8(ascii: ">") { return true }
        } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            quote = byte
        } else if byte == UInt8(ascii: ">") {
            return false
        }
    }
    return false
}

/// Whether some object of a JSON document has a key twice: decoders disagree on which value wins, so such
/// documents have no single reference reading. The document must be valid JSON.
public func hasRepeatedJSONKey(_ data: Data) -> Bool {
    let bytes = [UInt8](data)
    var stack: [(isObject: Bool, keys: Set<String>, expectsKey: Bool)] = []
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "{"):
            stack.append((true, [], true))
        case UInt8(ascii: "["):
            stack.append((false, [], false))
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            _ = stack.popLast()
        case UInt8(ascii: ","):
            if !stack.isEmpty, stack[stack.count - 1].isObject { stack[stack.count - 1].expectsKey = true }
        case UInt8(ascii: "\""):
            let start = index
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            if !stack.isEmpty, stack[stack.count - 1].expectsKey {
                let literal = Data(bytes[start...min(index, bytes.count - 1)])
                let key = (try? JSONSerialization.jsonObject(with: literal, options: [.fragmentsAllowed])) as? String
                // Keys compare as the decoders' dictionaries compare them: as Swift strings.
                if let key, !stack[stack.count - 1].keys.insert(key).inserted { return true }
                stack[stack.count - 1].expectsKey = false
            }
        default: break
        }
        index += 1
    }
    return false
}

/// The directory of ``inputPath``, one per process (libFuzzer's fork mode runs several).
let inputDirectory = "/dev/shm/beehive-fuzz-\(getpid())"

/// Where the harness writes its input: a file of its own under /dev/shm (the loaders read paths). Removed when the
/// process exits normally.
public let inputPath: String = {
    try? FileManager.default.createDirectory(atPath: inputDirectory, withIntermediateDirectories: true)
    atexit {
        try? FileManager.default.removeItem(atPath: inputDirectory)
    }
    return inputDirectory + "/input"
}()

/// Writes the input to ``inputPath``.
public func writeInput(_ data: Data) {
    do {
        try data.write(to: URL(fileURLWithPath: inputPath))
    } catch {
        check(false, "cannot write the input to \(inputPath): \(error)")
    }
}

/// A hive of its own that keeps every diagnostic and logs nothing.
public func makeHive() -> Hive {
    var logger = Logger(label: "fuzz")
    logger.logLevel = .critical
    return Hive(options: Hive.Options(logger: logger, diagnosticLimit: Int.max))
}

/// Whether a message explains a file rejected for its nesting or a cycle, which the reference reader may read.
public func isStructureLimit(_ message: String) -> Bool {
    let lowered = message.lowercased()
    return ["cycl", "recurs", "nest", "deep", "depth"].contains { lowered.contains($0) }
}

/// Nesting beyond which a loader may reject the whole file (with a clear error) rather than one entry.
public let generousNestingLimit = 32

/// Checks what a loader did with a file against the reference reading.
///
/// - Parameters:
///   - data: The file's bytes.
///   - result: What the loader returned: the file's problems, or the error that rejected the file.
///   - registered: What the hive holds afterwards, each with the entry index of its source, spelled as `expected`
///     spells entries.
///   - entries: The entries of a file's root, or `nil` when the root is not one the format allows.
///   - expected: What an entry registers, spelled for comparison; `nil` when the entry is not valid.
///   - alternatives: The valid entries that may be neither registered nor reported, by index: those outranked by
///     another entry of their key (services with ranks).
public func checkLoad(
    _ data: Data, _ result: Result<[Diagnostic], HiveError>, registered: [(index: Int?, value: String)],
    entries: (FileValue) -> [FileValue]?, expected: (FileValue) -> String?,
    alternatives: ([FileValue]) -> Set<Int> = { _ in [] }
) {
    switch result {
    case .failure(let error):
        check(error.code == .malformedFile, "the file was rejected with \(error.code): \(error.message)")
        check(error.source?.filePath == inputPath, "the error does not name the file: \(error)")
        check(registered.isEmpty, "a rejected file registered \(registered.map(\.value))")
    case .success(let problems):
        checkEntryProblems(problems)
        for item in registered {
            check(item.index != nil, "registration without an entry index: \(item.value)")
        }
    }

    // A file rejected for its nesting or a cycle may be one the reference reader cannot read either (CoreFoundation
    // recurses too), so it is not read again.
    let messages = (try? result.get().map(\.message)) ?? [result.failure?.message ?? ""]
    if messages.contains(where: isStructureLimit) || hasQuotedAngleBracketInDoctype(data) { return }
    guard let reference = FileValue.read(data) else { return }
    let isJSON = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } != UInt8(ascii: "<")
    if isJSON && hasRepeatedJSONKey(data) { return }
    guard let list = entries(reference) else {
        check((try? result.get()) == nil, "a file whose root is \(reference) loaded")
        return
    }
    let problems: [Diagnostic]
    switch result {
    case .failure(let error):
        if reference.depth > generousNestingLimit || isStricterThanReference(data, message: error.message) { return }
        let valid = list.filter { expected($0) != nil }.count
        check(
            false,
            "the file was rejected (\(error.message)); it has \(list.count) entries, \(valid) valid: \(reference)")
        return
    case .success(let found): problems = found
    }
    let wanted = list.map(expected)
    var covered = Set<Int>()
    for item in registered {
        guard let index = item.index, index >= 0, index < list.count else {
            check(
                false,
                "registration \(item.value) names entry \(item.index.map(String.init) ?? "none") of \(list.count)")
            continue
        }
        check(
            wanted[index] == item.value,
            "entry \(index) \(list[index]) registered as \(item.value), expected \(wanted[index] ?? "nothing")")
        covered.insert(index)
    }
    for problem in problems {
        guard let index = problem.source?.entryIndex, index >= 0, index < list.count else {
            check(false, "problem names no entry of \(list.count): \(problem)")
            continue
        }
        if problem.code == .invalidUTF8 {
            // Text that is not valid in its declared encoding (UTF-8, or the ASCII of a binary plist's 0x5 string
            // object) costs its entry. The reference reader may decode such bytes leniently, so it is no judge here.
        } else if problem.code == .malformedEntry {
            // A key given twice: the reference keeps one of the values (a dictionary); BeeHive refuses the entry,
            // as it documents (which value was meant is unknown).
            let repeatsKey = problem.message.contains("expected each key once")
            // XML allows no control characters but tab, line feed and carriage return: CoreFoundation reads text
            // with a NUL in it (`<integer>\0\0…05</integer>` as 5), BeeHive refuses the value, so the reference is
            // no judge of such a document's entries.
            let hasForbiddenControl = !isJSON && data.contains { $0 < 0x20 && ![0x09, 0x0A, 0x0D].contains($0) }
            // A binary plist's 16-byte integer beyond the 64-bit range: CoreFoundation keeps its low 64 bits,
            // BeeHive refuses the value (truncating would register another level or priority).
            let truncates128BitInteger =
                data.starts(with: Array("bplist".utf8)) && problem.message.contains("(a 128-bit integer)")
            check(
                wanted[index] == nil || repeatsKey || hasForbiddenControl || truncates128BitInteger,
                "valid entry \(index) \(list[index]) rejected: \(problem.message)")
        } else {
            check(
                wanted[index] != nil,
                "invalid entry \(index) \(list[index]) reported as a duplicate: \(problem.message)")
        }
        covered.insert(index)
    }
    let outranked = alternatives(list)
    for index in list.indices where !covered.contains(index) && !outranked.contains(index) {
        check(false, "entry \(index) \(list[index]) is neither registered nor reported")
    }
}

/// Every problem of a loaded file names the file and an entry, and is one an entry may cost.
public func checkEntryProblems(_ problems: [Diagnostic]) {
    for problem in problems {
        check(
            problem.source?.filePath == inputPath && problem.source?.entryIndex != nil,
            "a problem does not name the file and entry: \(problem)")
        check(
            [.malformedEntry, .invalidUTF8, .duplicateRegistration].contains(problem.code),
            "unexpected problem: \(problem)")
    }
}

extension Result {
    /// The error, if the result is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
