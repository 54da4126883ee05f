@_exported import BeeHive

// The macros exist with the package trait `Macros` only, which brings their plugin (and swift-syntax): without it,
// this module is empty and builds with no warning.

#if Macros
/// Registers the annotated type as an implementation of a service, as `BH_SERVICE` does from C.
///
/// The macro writes one Swift record (record format 3, in `swift5_tests`, found in memory through the Swift
/// runtime), which gives the same JSON record as `BH_SERVICE(App.UserTrackService, App.ConsoleTracker)` (with the
/// annotation's file and line) and a typed record that lets the first use skip the look-up by name. The compiler checks that the type is a `Service`; the macro adds the type's `ServiceImplementation`
/// conformance when the type does not declare it, so the type needs an `init()` and must be `Sendable`.
///
/// A service of one name (`UserTrackService`) is the current module's; write `PluginAPI.Greeter.self` for a
/// protocol of another module. The annotated type may not be generic, local or private: the runtime finds it by
/// its module-qualified name.
///
/// A macro sees names, not declarations, so BeeHive checks what the record will name as far as each mistake can be
/// seen:
/// - a composition (`(A & B).self`), an existential (`(any P).self`), a metatype (`P.Type.self`) or a specialised
///   generic type (`Box<Int>.self`) is the macro's own error, naming the types and the fix, with a fix-it where the
///   fix is mechanical (`P.self`, or one annotation for each protocol of a composition);
/// - another module's protocol written without its module is an error in BeeHive's words
///   ("@BeeHiveService(StockService.self): the service 'StockService' written here is not
///   'ShopServer.StockService', the type its record names: …; write it with the module that declares it,
///   '<Module>.StockService.self'"), beside the compiler's ("'StockService' is not imported through module
///   'ShopServer'", "did you mean module 'ShopAPI'?"): write `ShopAPI.StockService.self`;
/// - a typealias (`typealias Stock = ShopAPI.StockService`) compiles, since the compiler looks through it, and the
///   record names the alias: a resolve of the service then fails with `serviceNotFound`, whose message says that the
///   annotation named it through a typealias. Name the type.
///
/// ```swift
/// import BeeHiveMacros
///
/// public protocol UserTrackService: Sendable { func track(_ event: String) }
///
/// @BeeHiveService(UserTrackService.self)
/// struct ConsoleTracker: UserTrackService {
///     func track(_ event: String) { print(event) }
/// }
///
/// let tracker = try Hive.shared.createService(UserTrackService.self)
/// ```
///
/// A rank and properties make it one of several implementations that a plugin host chooses among
/// (`ServiceRegistration.rank`, `Hive.services(_:where:)`):
///
/// ```swift
/// @BeeHiveService(PriceService.self, rank: 10, properties: ["region": "eu"])
/// struct EuropeanPrices: PriceService { … }
/// ```
///
/// - Parameters:
///   - service: The service, a protocol: `UserTrackService.self`.
///   - name: The registration's name, for services with several implementations; default: none.
///   - rank: Its rank among the registrations of the service and name, an integer literal: the highest serves, the
///     next takes over when it leaves; default: 0.
///   - properties: What this implementation is, a dictionary literal of strings; default: none.
@attached(extension, conformances: ServiceImplementation, names: arbitrary)
public macro BeeHiveService<Service>(
    _ service: Service.Type, name: String? = nil, rank: Int = 0, properties: [String: String] = [:]
) = #externalMacro(module: "_BeeHiveMacrosPlugin", type: "ServiceMacro")

/// Registers a type declared elsewhere (another file or module) as an implementation of a service.
///
/// Write it at file scope or in a type's body. The implementation must already conform to
/// `ServiceImplementation`; the compiler checks it and that the implementation is a `Service`.
///
/// ```swift
/// #BeeHiveService(UserTrackService.self, ConsoleTracker.self)
/// #BeeHiveService(Cache.self, Storage.DiskCache.self, name: "disk")   // Storage: a module
/// ```
///
/// - Parameters:
///   - service: The service, a protocol.
///   - implementation: The implementation type; a dotted name starts with its module.
///   - name: The registration's name; default: none.
///   - rank: Its rank among the registrations of the service and name, an integer literal; default: 0.
///   - properties: What this implementation is, a dictionary literal of strings; default: none.
@freestanding(declaration)
public macro BeeHiveService<Service, Implementation>(
    _ service: Service.Type, _ implementation: Implementation.Type, name: String? = nil, rank: Int = 0,
    properties: [String: String] = [:]
) = #externalMacro(module: "_BeeHiveMacrosPlugin", type: "ServiceDeclarationMacro")
#endif
