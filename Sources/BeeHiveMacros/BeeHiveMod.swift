/// The start order of an annotated module, as `@BeeHiveMod(level:)` takes it; the record writes its name.
///
/// `BeeHiveModules.ModuleLevel` is the type the runtime uses; this one exists so that `@BeeHiveMod` needs no import
/// of `BeeHiveModules` to be declared.
public enum BeeHiveModuleLevel: Sendable {
    /// Level 0: starts first (BeeHive's `BHModuleBasic`).
    case basic
    /// Level 0, BeeHive's other name.
    case capability
    /// Level 1, the default.
    case normal
    /// Level 1, BeeHive's other name.
    case feature
    /// Level 2: starts last.
    case application
}

#if Macros
/// Declares the annotated `HiveModule`, as `BH_MODULE` does from C.
///
/// Every argument is optional and must be a literal; the record writes only those given (the defaults are level
/// `.normal`, priority 0, not async). The compiler checks that the type is a `HiveModule`.
///
/// ```swift
/// import BeeHiveMacros
/// import BeeHiveModules
///
/// @BeeHiveMod(level: .basic, priority: 100, async: true)
/// final class NetworkModule: HiveModule {
///     init() {}
/// }
/// ```
///
/// - Parameters:
///   - level: When the module starts: lower levels first.
///   - priority: Within a level, higher priorities first.
///   - async: Whether the module's init runs concurrently with the other async modules' inits.
@attached(extension, names: arbitrary)
public macro BeeHiveMod(level: BeeHiveModuleLevel? = nil, priority: Int? = nil, async: Bool? = nil) =
    #externalMacro(module: "_BeeHiveMacrosPlugin", type: "ModuleMacro")

/// Declares a module type declared elsewhere, at file scope or in a type's body.
///
/// ```swift
/// #BeeHiveMod(LoginModule.self, priority: 10)
/// ```
///
/// - Parameters:
///   - module: The module type; a dotted name starts with its module.
///   - level: When the module starts: lower levels first.
///   - priority: Within a level, higher priorities first.
///   - async: Whether the module's init runs concurrently with the other async modules' inits.
@freestanding(declaration)
public macro BeeHiveMod<Module>(
    _ module: Module.Type, level: BeeHiveModuleLevel? = nil, priority: Int? = nil, async: Bool? = nil
) = #externalMacro(module: "_BeeHiveMacrosPlugin", type: "ModuleDeclarationMacro")
#endif
