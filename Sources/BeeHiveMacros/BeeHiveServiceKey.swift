#if Macros
/// Declares a key for a service protocol, `<Protocol>Key`: asked for by its key, a service is registered and made
/// without naming the protocol's type at run time.
///
/// Naming `any Clock` makes the runtime build its metadata from a mangled name, about 3.6 K instructions per service
/// the first time a process does it; a key is an enum of the protocol's module, whose metadata is static. The macro
/// declares the key (a `ServiceKey` whose `Service` is `any Clock` and whose name is the protocol's
/// module-qualified name) and, beside it, the function by which every `@BeeHiveService(Clock.self)`, wherever it is
/// compiled, registers its implementation under the key. Asking by the protocol's type still works, as before.
///
/// Write it on a protocol at file scope (its clients find the key by a function declared beside it).
///
/// ```swift
/// import BeeHiveMacros
///
/// @BeeHiveServiceKey
/// public protocol Clock: Sendable { var now: Int { get } }
///
/// @BeeHiveService(Clock.self)
/// struct SystemClock: Clock { var now: Int { 1000 } }
///
/// let clock = try Hive.shared.createService(ClockKey.self)   // any Clock
/// ```
@attached(peer, names: suffixed(Key), named(_beeHiveServiceKey))
public macro BeeHiveServiceKey() = #externalMacro(module: "_BeeHiveMacrosPlugin", type: "ServiceKeyMacro")
#endif
