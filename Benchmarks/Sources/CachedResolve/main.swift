import BeeHive
import Swinject

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Cached resolve, one mechanism per run, for instruction and allocation counts under valgrind (Tools/firstuse.py):
//
//     CachedResolve <mechanism> <count>
//
// registers one singleton service, resolves it once (its first use, which creates the instance), then resolves it
// `count` more times, each call storing the instance in a global so that the optimizer keeps every call. The cost
// of one cached resolve is (count(K) − count(0)) / K of the same program, so that loading, registration and the
// first use cancel out. Mechanisms:
//
//     beehive              `hive.createService(CachedService.self)` of a singleton already created
//     beehive-shared       the same through `Hive.shared.createService(CachedService.self)` (the shared hive read
//                          each call, as a program does)
//     beehive-name         `hive.createService(named:)` of the same singleton, cast to the service as its caller
//                          does (`as!`, like the dictionary's)
//     dictionary           a `[ObjectIdentifier: () -> Any]` of closures returning the shared instance, and `as!`
//                          (the floor of a container keyed by type)
//     wired                compile-time wiring: one lazily created `static let` (the floor of all)
//     swinject-container   Swinject `container.resolve(CachedService.self)` in `.container` scope (singletons: like
//                          for like)
//
// Prints `resolved=<count> mechanism=<name>` and exits 0; exits 1 when a resolve gives another instance than the
// first, 2 on bad arguments.

/// The service resolved.
protocol CachedService: AnyObject, Sendable {}

/// Its implementation: a singleton.
final class CachedServiceImpl: CachedService, ServiceImplementation {
    static var isSingleton: Bool { true }
    init() {}
}

/// Compile-time wiring: the shared instance is a lazily initialized global.
enum Wired {
    static let service: any CachedService = CachedServiceImpl()
}

/// The last resolved instance: every call stores here, so none is optimized away.
nonisolated(unsafe) var sink: AnyObject?

/// The shared instance of the dictionary's closure, created on first use.
final class SharedInstance {
    var instance: CachedServiceImpl?
}

/// The floor of a container keyed by type.
final class Dictionary {
    var factories: [ObjectIdentifier: () -> Any] = [:]

    init() {
        let shared = SharedInstance()
        factories[ObjectIdentifier(CachedService.self)] = {
            if let instance = shared.instance { return instance }
            let made = CachedServiceImpl()
            shared.instance = made
            return made
        }
    }
}

@inline(never)
func resolve(_ hive: Hive) {
    do {
        sink = try hive.createService(CachedService.self)
    } catch {
        fail("\(error)")
    }
}

@inline(never)
func resolveShared() {
    do {
        sink = try Hive.shared.createService(CachedService.self)
    } catch {
        fail("\(error)")
    }
}

@inline(never)
func resolve(_ hive: Hive, named name: String) {
    do {
        sink = try hive.createService(named: name) as! any CachedService
    } catch {
        fail("\(error)")
    }
}

@inline(never)
func resolve(_ dictionary: Dictionary) {
    guard let factory = dictionary.factories[ObjectIdentifier(CachedService.self)] else { fail("not registered") }
    sink = factory() as! any CachedService
}

@inline(never)
func resolveWired() {
    sink = Wired.service
}

@inline(never)
func resolve(_ container: Container) {
    sink = container.resolve(CachedService.self)
}

/// Writes `message` and a newline to the standard error.
func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    printError("CachedResolve: \(message)")
    exit(1)
}

let mechanisms = ["beehive", "beehive-shared", "beehive-name", "dictionary", "wired", "swinject-container"]
let arguments = CommandLine.arguments
guard arguments.count == 3, mechanisms.contains(arguments[1]), let count = Int(arguments[2]), count >= 0 else {
    printError("usage: CachedResolve \(mechanisms.joined(separator: "|")) <count ≥ 0>")
    exit(2)
}
let mechanism = arguments[1]
let step: () -> Void
switch mechanism {
case "beehive", "beehive-name":
    let hive = Hive()
    do {
        try hive.register(service: CachedService.self, impl: CachedServiceImpl.self)
    } catch {
        fail("registering: \(error)")
    }
    if mechanism == "beehive" {
        step = { resolve(hive) }
    } else {
        let name = String(reflecting: CachedService.self)
        step = { resolve(hive, named: name) }
    }
case "beehive-shared":
    do {
        try Hive.shared.register(service: CachedService.self, impl: CachedServiceImpl.self)
    } catch {
        fail("registering: \(error)")
    }
    step = { resolveShared() }
case "dictionary":
    let dictionary = Dictionary()
    step = { resolve(dictionary) }
case "wired":
    step = { resolveWired() }
default:
    let container = Container()
    container.register(CachedService.self) { _ in CachedServiceImpl() }.inObjectScope(.container)
    step = { resolve(container) }
}
step()  // the first use: creates the singleton
guard let first = sink else { fail("\(mechanism) resolved nothing") }
for _ in 0..<count {
    step()
}
guard sink === first else { fail("\(mechanism) resolved another instance than the first") }
print("resolved=\(count + 1) mechanism=\(mechanism)")
