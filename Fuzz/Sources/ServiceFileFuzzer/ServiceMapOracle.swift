import BeeHive
import FileOracle
import Foundation
import FuzzCheck

/// Whether the reference reading of the file is BeeHive's dictionary form of `BHService.plist`, `{protocol: class}`:
/// a root dictionary without a `services` key (that one is the wrapped array form).
func serviceMap(_ data: Data) -> [String: FileValue]? {
    guard case .dictionary(let fields)? = FileValue.read(data), fields["services"] == nil else { return nil }
    return fields
}

/// Checks a load of the dictionary form against its reference reading.
///
/// The reference reading is a Swift dictionary: it keeps neither the file's order (which gives the entries their
/// indices) nor repeated keys, and it merges keys that are canonically equivalent where BeeHive compares bytes. So
/// this checks what holds whatever the order: the file is rejected only as a whole file (`malformedFile`), every
/// problem names the file and an entry, and every registration names a key of the file whose value there is the
/// non-empty string registered (checked for ASCII keys and values, which no reader decodes differently, in files
/// without repeated keys: JSON checked exactly, property lists by the key's bytes).
func checkServiceMap(
    _ data: Data, _ fields: [String: FileValue], _ result: Result<[Diagnostic], HiveError>,
    registered: [(index: Int?, value: String)], services: [ServiceRegistration]
) {
    switch result {
    case .failure(let error):
        check(error.code == .malformedFile, "the file was rejected with \(error.code): \(error.message)")
        check(services.isEmpty, "a rejected file registered \(services.map(\.service))")
        return
    case .success(let problems):
        checkEntryProblems(problems)
        if problems.contains(where: { $0.message.contains("expected each key once") }) { return }
    }
    // A key given twice in the map: BeeHive registers the first valid value and reports the other (a duplicate, or a
    // malformed entry); the reference dictionary keeps one of them, so it is no judge of which was registered.
    let first = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
    let isJSON = first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    if isJSON && hasRepeatedJSONKey(data) { return }
    for (item, registration) in zip(registered, services) {
        check(item.index != nil, "registration without an entry index: \(item.value)")
        let key = registration.service
        guard key.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
            registration.implementation.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
        else { continue }
        // In a property list, a key written twice (its bytes found twice) is not judged either.
        guard isJSON || occurrences(of: Array(key.utf8), in: data) < 2 else { continue }
        guard case .string(let impl)? = fields[key] else {
            check(false, "registered \(key) -> \(registration.implementation), which is no pair of the file: \(fields)")
            continue
        }
        check(impl == registration.implementation, "registered \(key) -> \(registration.implementation), file: \(impl)")
    }
}

/// How many times `needle` occurs in `data` (overlapping occurrences count).
func occurrences(of needle: [UInt8], in data: Data) -> Int {
    let bytes = [UInt8](data)
    guard !needle.isEmpty, bytes.count >= needle.count else { return 0 }
    return (0...(bytes.count - needle.count)).filter { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }.count
}
