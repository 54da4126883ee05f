@_spi(Testing) internal import _BeeHiveDiscovery

extension Hive {
    /// Registers the records of a batch and keeps the problems; returns the problems to log.
    ///
    /// The sections and problems of an image being loaded as a plugin (``Hive/Plugins-swift.struct``) are taken out
    /// of the batch: they join the registry as one step of their own (``join(_:)``), and the loading call puts them
    /// in force.
    func ingest(_ batch: ImageScanner.Batch) -> (ScanReport, [Diagnostic]) {
        timeline.span("ingest", category: "registration") { arguments in
            var batch = batch
            let claimed = pluginTable.take(from: &batch)
            var (report, problems) = registerRecords(of: batch)
            for image in claimed {
                let joined = join(image)
                report.sections += image.sections.count
                report.services += joined.registered.services
                report.modules += joined.registered.modules
                report.routes += joined.registered.routes
                problems += joined.problems
            }
            report.problems = problems.count
            keep(problems)
            if arguments.isRecording {
                arguments["sections"] = .integer(report.sections)
                arguments["services"] = .integer(report.services)
                arguments["modules"] = .integer(report.modules)
                arguments["routes"] = .integer(report.routes)
                arguments["problems"] = .integer(report.problems)
            }
            return (report, problems)
        }
    }
}
