import ArgumentParser
import BeeHive
import Logging

/// `beehive migrate BHService.plist [BeeHive.plist]`: the annotations that declare what BeeHive's plists list.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the BH_SERVICE and BH_MODULE lines that replace BeeHive's BHService.plist and BeeHive.plist.",
        discussion: """
            Reads the files with the library's own loaders (XML or binary property lists, or JSON) and prints a C \
            file for a target that depends on CBeeHive: BH_SERVICE, BH_NAMED_SERVICE and BH_MODULE lines, keeping \
            names, levels, priorities and async flags. BHService.plist may be BeeHive's array of {service, impl} or \
            its dictionary {protocol: class}; BeeHive.plist's URLGlobalScheme (BHRouter's global scheme) becomes a \
            comment with the Swift line that sets it. Only C annotations are printed. Entries the library rejects \
            are skipped and reported on standard error (exit status 1), as are names without a module (pass \
            --module); a file that cannot be read exits with status 2.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "BeeHive's services file: an array of {service, impl[, name, rank, properties]}, or a dictionary {protocol: class}.",
            valueName: "BHService.plist"))
    var services: String

    @Argument(
        help: ArgumentHelp(
            "BeeHive's modules file: {moduleClasses: [{moduleClass, moduleLevel, modulePriority}]}.",
            valueName: "BeeHive.plist"))
    var modules: String?

    @Option(
        help: ArgumentHelp(
            "Put this module before names that have none (BeeHive's Objective-C class names).", valueName: "name"))
    var module: String?

    func validate() throws {
        if let module, !AnnotationWriter.isIdentifier(module) {
            throw ValidationError("expected --module to be a Swift module name (an identifier); found \"\(module)\"")
        }
    }

    func run() throws {
        // The library's diagnostics are printed here, one line each, rather than logged.
        let hive = Hive(options: .init(logger: Logger(label: "beehive", factory: { _ in SwiftLogNoOpLogHandler() })))
        var problems: [Diagnostic] = []
        var schemeNote: GlobalSchemeNote?
        do {
            problems += try hive.loadServices(from: services)
            if let modules {
                problems += try hive.loadModules(from: modules)
                schemeNote = try GlobalSchemeNote(modulesFile: modules)
            }
        } catch {
            printError("\(error)")
            throw ExitStatus.usage.exitCode
        }
        let writer = AnnotationWriter(module: module)
        let registrations = hive.serviceRegistrations
        let declarations = hive.moduleDeclarations
        print(
            writer.render(services: registrations, from: services, modules: declarations, from: modules)
                + (schemeNote?.comment ?? ""), terminator: "")
        for problem in problems { printError("\(problem)") }
        let unqualified = writer.unqualifiedNames(services: registrations, modules: declarations)
        if !unqualified.isEmpty {
            let shown = unqualified.prefix(5).joined(separator: ", ") + (unqualified.count > 5 ? ", …" : "")
            printError(
                "warning: expected module-qualified names (Module.Type), which records need to find Swift types; "
                    + "found \(unqualified.count) without a module (\(shown)): pass --module NAME")
        }
        if !problems.isEmpty || !unqualified.isEmpty { throw ExitStatus.problems.exitCode }
    }
}
