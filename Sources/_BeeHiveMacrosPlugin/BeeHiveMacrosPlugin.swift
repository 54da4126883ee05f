#if Macros
import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that expands BeeHive's annotation macros (`@BeeHiveService`, `@BeeHiveMod`,
/// `@BeeHiveRoute` and their freestanding forms, `@BeeHiveAPI`, `@BeeHiveServiceKey`), declared in the
/// `BeeHiveMacros` module.
@main
struct BeeHiveMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ServiceMacro.self, ServiceDeclarationMacro.self, ModuleMacro.self, ModuleDeclarationMacro.self,
        RouteMacro.self, RouteDeclarationMacro.self, APIMacro.self, ServiceKeyMacro.self,
    ]
}
#else
/// Without the package trait `Macros`, the plugin is an empty program: nothing depends on it, and swift-syntax is
/// neither resolved nor built.
@main
struct BeeHiveMacrosPlugin {
    static func main() {}
}
#endif
