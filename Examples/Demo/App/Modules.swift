import BeeHiveModules

// MARK: - Modules, declared in Annotations/annotations.c (BH_MODULE): the demo lists their declarations; a
// ModuleManager would create them and deliver their events.

/// The accounts' module: basic level, priority 100, so it is set up before the others.
public final class AccountModule: HiveModule {
    public init() {}
}

/// The home screen's module, at the default level and priority.
public final class HomeModule: HiveModule {
    public init() {}
}
