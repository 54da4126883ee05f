import BeeHive
import FileOracle
import Foundation
import FuzzCheck

/// Fuzzes `Hive.loadServices(from:)` with XML and binary property lists and JSON.
///
/// The input is the file, written under /dev/shm. Checked for every input against a reference reading (see
/// `checkLoad`): a file with a valid root loads; every valid entry is registered or reported as a duplicate; every
/// invalid entry is reported, and only valid entries are registered, with the values the entry holds. BeeHive's
/// dictionary form `{protocol: class}` is checked by `checkServiceMap`.
@main
enum ServiceFileFuzzer {
    static func main() { runFuzzer(fuzzServiceFile) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzServiceFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    writeInput(bytes)
    let hive = makeHive()
    let result = Result { () throws(HiveError) in try hive.loadServices(from: inputPath) }
    let registered = hive.serviceRegistrations.map { registration in
        (
            registration.source.entryIndex,
            spell(
                registration.service, registration.implementation, registration.name, rank: registration.rank,
                properties: registration.properties)
        )
    }
    if let map = serviceMap(bytes) {
        // BeeHive's dictionary form {protocol: class}: checked without the file's order (see checkServiceMap).
        checkServiceMap(bytes, map, result, registered: registered, services: hive.serviceRegistrations)
        return 0
    }
    checkLoad(
        bytes, result, registered: registered, entries: serviceEntries, expected: expectedService,
        alternatives: outrankedServices)
    return 0
}

func spell(
    _ service: String, _ impl: String, _ name: String?, rank: Int = 0, properties: [String: String] = [:]
) -> String {
    "\(service) -> \(impl)" + (name.map { " [\($0)]" } ?? "") + (rank == 0 ? "" : " rank \(rank)")
        + properties.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
}

/// The valid entries that a higher-ranked valid entry of the same service and name outranks: neither registered nor
/// reported (a file's registrations are never withdrawn, so they can never take over).
func outrankedServices(_ list: [FileValue]) -> Set<Int> {
    var best: [String: Int] = [:]
    var valid: [(index: Int, key: String, rank: Int)] = []
    for (index, entry) in list.enumerated() {
        guard expectedService(entry) != nil, case .dictionary(let fields) = entry,
            case .string(let service)? = fields["service"]
        else { continue }
        var name = ""
        if case .string(let n)? = fields["name"] { name = n }
        let key = service + "\u{0}" + name
        let rank = fields["rank"].flatMap(rankValue) ?? 0
        best[key] = max(best[key] ?? rank, rank)
        valid.append((index, key, rank))
    }
    return Set(valid.filter { $0.rank < best[$0.key]! }.map(\.index))
}

/// A rank as BeeHive reads it: an integer, a real without a fraction, or a string of digits.
func rankValue(_ value: FileValue) -> Int? {
    switch value {
    case .integer(let i): i
    case .real(let d): Int(exactly: d)
    case .string(let s): Int(s)
    default: nil
    }
}

/// An array of entries, or a dictionary with the array under `services`.
func serviceEntries(_ root: FileValue) -> [FileValue]? {
    switch root {
    case .array(let entries): entries
    case .dictionary(let fields): if case .array(let entries)? = fields["services"] { entries } else { nil }
    default: nil
    }
}

/// `{service, impl[, name, rank, properties]}` with non-empty strings, a rank as ``rankValue(_:)`` reads it,
/// properties a dictionary of strings, and no other key.
func expectedService(_ entry: FileValue) -> String? {
    guard case .dictionary(let fields) = entry,
        Set(fields.keys).isSubset(of: ["service", "impl", "name", "rank", "properties"]),
        case .string(let service)? = fields["service"], !service.isEmpty,
        case .string(let impl)? = fields["impl"], !impl.isEmpty
    else { return nil }
    var rank = 0
    if let value = fields["rank"] {
        guard let r = rankValue(value) else { return nil }
        rank = r
    }
    var properties: [String: String] = [:]
    if let value = fields["properties"] {
        guard case .dictionary(let pairs) = value else { return nil }
        for (key, value) in pairs {
            guard case .string(let s) = value else { return nil }
            properties[key] = s
        }
    }
    switch fields["name"] {
    case nil: return spell(service, impl, nil, rank: rank, properties: properties)
    case .string(let name)? where !name.isEmpty:
        return spell(service, impl, name, rank: rank, properties: properties)
    default: return nil
    }
}
