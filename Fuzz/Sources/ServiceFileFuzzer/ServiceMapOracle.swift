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
/// without repeated keys).
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
        for problem in problems {
            check(
                problem.source?.filePath == inputPath && problem.source?.entryIndex != nil,
                "a problem does not name the file and entry: \(problem)")
            check(
                [.malformedEntry, .invalidUTF8, .duplicateRegistration].contains(problem.code),
                "unexpected problem: \(problem)")
        }
        if problems.contains(where: { $0.message.contains("expected each key once") }) { return }
        // A key given twice in the map: BeeHive registers the first value and reports the second as a duplicate;
        // the reference dictionary keeps one of them, so it is no judge of which was registered.
        if problems.contains(where: { $0.code == .duplicateRegistration }) { return }
    }
    for (item, registration) in zip(registered, services) {
        check(item.index != nil, "registration without an entry index: \(item.value)")
        let key = registration.service
        guard key.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
            registration.implementation.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
        else { continue }
        guard case .string(let impl)? = fields[key] else {
            check(false, "registered \(key) -> \(registration.implementation), which is no pair of the file: \(fields)")
            continue
        }
        check(impl == registration.implementation, "registered \(key) -> \(registration.implementation), file: \(impl)")
    }
}
