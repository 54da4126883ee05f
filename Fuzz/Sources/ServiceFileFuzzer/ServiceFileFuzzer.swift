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
            spell(registration.service, registration.implementation, registration.name)
        )
    }
    if let map = serviceMap(bytes) {
        // BeeHive's dictionary form {protocol: class}: checked without the file's order (see checkServiceMap).
        checkServiceMap(bytes, map, result, registered: registered, services: hive.serviceRegistrations)
        return 0
    }
    checkLoad(bytes, result, registered: registered, entries: serviceEntries, expected: expectedService)
    return 0
}

func spell(_ service: String, _ impl: String, _ name: String?) -> String {
    "\(service) -> \(impl)" + (name.map { " [\($0)]" } ?? "")
}

/// An array of entries, or a dictionary with the array under `services`.
func serviceEntries(_ root: FileValue) -> [FileValue]? {
    switch root {
    case .array(let entries): entries
    case .dictionary(let fields): if case .array(let entries)? = fields["services"] { entries } else { nil }
    default: nil
    }
}

/// `{service, impl[, name]}` with non-empty strings and no other key.
func expectedService(_ entry: FileValue) -> String? {
    guard case .dictionary(let fields) = entry, Set(fields.keys).isSubset(of: ["service", "impl", "name"]),
        case .string(let service)? = fields["service"], !service.isEmpty,
        case .string(let impl)? = fields["impl"], !impl.isEmpty
    else { return nil }
    switch fields["name"] {
    case nil: return spell(service, impl, nil)
    case .string(let name)? where !name.isEmpty: return spell(service, impl, name)
    default: return nil
    }
}
