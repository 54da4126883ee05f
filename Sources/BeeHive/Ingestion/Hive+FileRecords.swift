@_spi(Testing) package import _BeeHiveDiscovery

extension Hive {
    /// Registers the records of `sections`, read from an image's file on disk rather than from a loaded image: with
    /// the parser, the checks, the duplicates and the problems of a scan, so that ``report()`` says what a program
    /// that loads the image would register. For the `beehive` tool, which reads files without running them.
    ///
    /// Typed records (the Swift macros' pointers into a loaded image) and the sections the options leave out are
    /// skipped; give each image its own `imageID` in its sections, as the scanner does.
    /// - Parameter sections: The record sections of one image.
    package func registerRecords(of sections: [RecordSection]) {
        var parsed = ParsedRecords()
        var problems: [Diagnostic] = []
        for section in sections where options.registersRecords(of: section.sectionName) {
            parse(section, into: &parsed, problems: &problems)
        }
        problems += add(services: parsed.services, modules: parsed.modules, routes: parsed.routes)
        keep(problems)
    }
}
