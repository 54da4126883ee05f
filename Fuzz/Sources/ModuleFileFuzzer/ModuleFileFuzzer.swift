import BeeHive
import FileOracle
import Foundation
import FuzzCheck

/// Fuzzes `Hive.loadModules(from:)` with XML and binary property lists and JSON.
///
/// The input is the file, written under /dev/shm. Checked for every input against a reference reading (see
/// `checkLoad`): a file with a valid root loads; every valid entry is declared or reported as a duplicate; every
/// invalid entry is reported, and only valid entries are declared, with the level, priority and mode they give.
@main
enum ModuleFileFuzzer {
    static func main() { runFuzzer(fuzzModuleFile) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzModuleFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    writeInput(bytes)
    let hive = makeHive()
    let result = Result { () throws(HiveError) in try hive.loadModules(from: inputPath) }
    let registered = hive.moduleDeclarations.map { module in
        (module.source.entryIndex, spell(module.name, module.level, module.priority, module.isAsync))
    }
    checkLoad(bytes, result, registered: registered, entries: moduleEntries, expected: expectedModule)
    return 0
}

func spell(_ name: String, _ level: ModuleLevel, _ priority: Int, _ isAsync: Bool) -> String {
    "\(name) level \(level.rawValue) priority \(priority)\(isAsync ? " async" : "")"
}

/// A dictionary with the entries under `moduleClasses`.
func moduleEntries(_ root: FileValue) -> [FileValue]? {
    guard case .dictionary(let fields) = root, case .array(let entries)? = fields["moduleClasses"] else { return nil }
    return entries
}

/// `{moduleClass[, moduleLevel, modulePriority, moduleAsync]}`: a non-empty name; a level that is an integer, a
/// string of one, or a level name; a priority that is an integer or a string of one; a boolean; no other key.
func expectedModule(_ entry: FileValue) -> String? {
    let keys: Set<String> = ["moduleClass", "moduleLevel", "modulePriority", "moduleAsync"]
    guard case .dictionary(let fields) = entry, Set(fields.keys).isSubset(of: keys),
        case .string(let name)? = fields["moduleClass"], !name.isEmpty
    else { return nil }
    var level = ModuleLevel.normal
    if let value = fields["moduleLevel"] {
        if let number = value.integer {
            level = ModuleLevel(rawValue: number)
        } else if case .string(let text) = value,
            let parsed = Int(text).map(ModuleLevel.init) ?? ModuleLevel(named: text)
        {
            level = parsed
        } else {
            return nil
        }
    }
    var priority = 0
    if let value = fields["modulePriority"] {
        if let number = value.integer {
            priority = number
        } else if case .string(let text) = value, let number = Int(text) {
            priority = number
        } else {
            return nil
        }
    }
    var isAsync = false
    if let value = fields["moduleAsync"] {
        guard case .bool(let flag) = value else { return nil }
        isAsync = flag
    }
    return spell(name, level, priority, isAsync)
}
