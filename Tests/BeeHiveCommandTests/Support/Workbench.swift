import Foundation

/// Real inputs for the tool, built once per test run with the system's C compiler, `ar`, `strip` and `swiftc`:
/// object files, archives, a shared library, executables (dynamic, stripped, static) and a small Swift program.
struct Workbench: Sendable {
    /// The folder that holds everything built.
    let folder: URL

    /// The path of a file in the folder.
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The workbench, built on first use.
    static let shared: Result<Workbench, Tool.Failure> = {
        do {
            return .success(try build())
        } catch let error as Tool.Failure {
            return .failure(error)
        } catch {
            return .failure(Tool.Failure(description: "\(error)"))
        }
    }()

    /// The C sources, by file name.
    static let sources: [String: String] = [
        // Records of every kind, and a function: an archive member a link pulls in.
        "records.c": #"""
        #include <beehive.h>
        BH_SERVICE(App.Tracker, App.ConsoleTracker)
        BH_NAMED_SERVICE(App.Cache, App.DiskCache, disk)
        BH_MODULE(App.NetworkModule, basic, 100, true)
        BH_MODULE(App.HomeModule)
        BH_ROUTE("app://user/:id", App.UserRoute)
        int records_anchor(void) { return 1; }
        """#,
        // Records in sections of other names, which only the note tells.
        "payments.c": #"""
        #define BH_SERVICES_SECTION "payments_services"
        #define BH_MODULES_SECTION "payments_mods"
        #include <beehive.h>
        BH_SERVICE(Payments.Service, Payments.StripeService)
        BH_MODULE(Payments.Module, application, -5)
        int payments_anchor(void) { return 2; }
        """#,
        // Records that nothing refers to: an archive member no link pulls in.
        "loose.c": #"""
        #include <beehive.h>
        BH_SERVICE(Loose.Service, Loose.Impl)
        """#,
        // A file without records.
        "util.c": "int util(int x) { return x + 1; }\n",
        "main.c": #"""
        int records_anchor(void);
        int main(void) { return records_anchor() - 1; }
        """#,
        // The records of a plugin.
        "plugin.c": #"""
        #include <beehive.h>
        BH_SERVICE(Plugin.Greeter, Plugin.LoudGreeter)
        BH_ROUTE("plugin://hello", Plugin.HelloRoute)
        """#,
        // Good and bad records side by side; the unterminated one ends the section (at -O0 the compilers keep
        // the order of declarations).
        "malformed.c": #"""
        #include <beehive.h>
        BH_SERVICE(Bad.Good1, Bad.Impl1)
        BH_RECORD(BH_SERVICES_SECTION, "{\"Bad.NoColon\" \"Bad.Impl\"}")
        BH_RECORD(BH_SERVICES_SECTION, "{\"Bad.UTF8\":\"Bad.\xff\xfeImpl\"}")
        BH_RECORD(BH_SERVICES_SECTION, "[\"an array\"]")
        BH_RECORD(BH_MODULES_SECTION, "{\"module\":\"Bad.Module\",\"level\":\"turbo\"}")
        BH_SERVICE(Bad.Good2, Bad.Impl2)
        BH__KEEP __attribute__((section(BH_SERVICES_SECTION))) static const char unterminated[] = {'{', '"', 'B'};
        """#,
        // Records the compiler keeps but a link with --gc-sections drops: `used` without `retain`.
        "unretained.c": #"""
        #include <beehive.h>
        __attribute__((used, section("beehive_services"))) static const char r1[] = "{\"Old.Service\":\"Old.Impl\"}";
        int unretained_anchor(void) { return 3; }
        """#,
        // Records written without the image note.
        "nonote.c": #"""
        #define BH_NO_IMAGE_NOTE
        #include <beehive.h>
        BH_SERVICE(NoNote.Service, NoNote.Impl)
        int nonote_anchor(void) { return 4; }
        """#,
        // A duplicate of records.c's first service, with another implementation.
        "duplicate.c": #"""
        #include <beehive.h>
        BH_SERVICE(App.Tracker, App.FileTracker)
        int duplicate_anchor(void) { return 5; }
        """#,
        // The records of the Swift program below; with -DBROKEN, one names a service and an implementation that do
        // not exist, another misspells a service.
        "swift_records.c": #"""
        #include <beehive.h>
        BH_SERVICE(App.AppService, App.AppServiceImpl)
        BH_SERVICE(App.Clock, App.Outer.ValueClock)
        BH_NAMED_SERVICE(App.Clock, App.Choice, choice)
        BH_MODULE(App.AppModule, basic, 7)
        BH_ROUTE("app://home", App.HomeRoute)
        #ifdef BROKEN
        BH_SERVICE(App.Ghost, App.GhostImpl)
        BH_SERVICE(App.AppServise, App.AppServiceImpl)
        #endif
        """#,
    ]

    /// A Swift program that defines every type `swift_records.c` names: a class, a struct nested in an enum, an
    /// enum, and names that share words with the module (their manglings use word substitutions).
    static let swiftProgram = """
        public protocol AppService {}
        public protocol Clock {}
        public final class AppServiceImpl: AppService { public init() {} }
        public enum Outer { public struct ValueClock: Clock { public init() {} } }
        public enum Choice: Clock { case one }
        public final class AppModule { public init() {} }
        public struct HomeRoute { public init() {} }
        print("ready")
        """

    /// A host, the protocols' module it shares with its plugins (`libAPI.so`), and plugins of that module's
    /// protocol: two versions built the right way (they link `libAPI.so`), and one that links a copy of the
    /// module's object into itself (`libhello-copy.so`). Each plugin's record names its own `Hello`.
    static let pluginSources: [String: String] = [
        "api.swift": "public protocol Greeter { func greet() -> String }\n",
        "greeterhost.swift": #"""
        import API
        public func use(_ greeter: any Greeter) -> String { greeter.greet() }
        print("host")
        """#,
        "hello.swift": #"""
        import API
        public final class Hello: Greeter {
            public init() {}
            public func greet() -> String { "hello" }
        }
        """#,
        "hello_records.c": "#include <beehive.h>\nBH_SERVICE(API.Greeter, HelloPlugin.Hello)\n",
        "hello_v2_records.c": "#include <beehive.h>\nBH_SERVICE(API.Greeter, HelloPluginV2.Hello)\n",
        "hello_copy_records.c": "#include <beehive.h>\nBH_SERVICE(API.Greeter, CopyPlugin.Hello)\n",
    ]

    private static let prefix = "beehive-command-tests-"

    /// Removes the workbenches of earlier test runs whose process has ended.
    private static func removeStaleWorkbenches() {
        let temporary = FileManager.default.temporaryDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
    }

    private static func build() throws -> Workbench {
        removeStaleWorkbenches()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bench = Workbench(folder: folder)
        for (name, text) in sources {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        for (name, text) in pluginSources {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try swiftProgram.write(to: folder.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        let include = "-I" + Tool.repository.appendingPathComponent("CSupport/CBeeHive/include").path

        func cc(_ arguments: [String]) throws { try Tool.succeed("cc", [include] + arguments, in: folder) }
        for name in ["records", "payments", "loose", "util", "main", "malformed", "unretained", "nonote", "duplicate"] {
            try cc(["-c", "\(name).c", "-o", "\(name).o"])
        }
        try cc(["-c", "-fPIC", "plugin.c", "-o", "plugin.o"])
        try cc(["-c", "swift_records.c", "-o", "swift_records.o"])
        try cc(["-c", "-DBROKEN", "swift_records.c", "-o", "swift_records_broken.o"])
        try Tool.succeed("ar", ["rcs", "librecords.a", "records.o", "payments.o", "util.o"], in: folder)
        try Tool.succeed("ar", ["rcs", "libloose.a", "loose.o", "util.o"], in: folder)
        try Tool.succeed("ar", ["rcs", "libnothing.a", "util.o", "main.o"], in: folder)
        try cc(["-shared", "plugin.o", "-o", "libplugin.so"])
        try cc(["main.o", "records.o", "payments.o", "-o", "app"])
        try cc(["-Wl,--gc-sections", "main.o", "records.o", "payments.o", "-o", "app-gc"])
        try Tool.succeed("strip", ["-o", "app-stripped", "app"], in: folder)
        try cc(["-static", "main.o", "records.o", "payments.o", "-o", "app-static"])
        try Tool.succeed(
            "swiftc", ["-module-name", "App", "main.swift", "swift_records.o", "-o", "swiftapp"], in: folder)
        try Tool.succeed(
            "swiftc", ["-module-name", "App", "main.swift", "swift_records_broken.o", "-o", "swiftapp-broken"],
            in: folder)
        try Tool.succeed("strip", ["-o", "swiftapp-stripped", "swiftapp-broken"], in: folder)
        try buildPlugins(cc: cc, in: folder)
        return bench
    }

    /// Builds `pluginSources`: libAPI.so, greeterhost, libhello.so, libhello-v2.so, libhello-copy.so and
    /// libhello-v2-stale.so.
    private static func buildPlugins(cc: ([String]) throws -> Void, in folder: URL) throws {
        func swiftc(_ arguments: [String]) throws { try Tool.succeed("swiftc", arguments, in: folder) }
        try swiftc([
            "-parse-as-library", "-emit-library", "-module-name", "API", "api.swift", "-emit-module-path",
            "API.swiftmodule", "-o", "libAPI.so",
        ])
        // The same module as an object, for the plugin that links it into itself.
        try swiftc(["-parse-as-library", "-c", "-module-name", "API", "api.swift", "-o", "api-copy.o"])
        try swiftc([
            "-module-name", "GreeterHost", "greeterhost.swift", "-I", ".", "-L", ".", "-lAPI", "-o", "greeterhost",
        ])
        for records in ["hello_records", "hello_v2_records", "hello_copy_records"] {
            try cc(["-c", "-fPIC", "\(records).c", "-o", "\(records).o"])
        }
        let plugins = [
            ("HelloPlugin", "hello_records.o", ["-L", ".", "-lAPI"], "libhello.so"),
            ("HelloPluginV2", "hello_v2_records.o", ["-L", ".", "-lAPI"], "libhello-v2.so"),
            ("CopyPlugin", "hello_copy_records.o", ["api-copy.o"], "libhello-copy.so"),
            // Version 2 with version 1's record left in: it names a type that only version 1 defines.
            ("HelloPluginV2", "hello_records.o", ["-L", ".", "-lAPI"], "libhello-v2-stale.so"),
        ]
        for (module, records, api, output) in plugins {
            try swiftc(
                ["-parse-as-library", "-emit-library", "-module-name", module, "hello.swift", records, "-I", "."]
                    + api + ["-o", output])
        }
    }
}
