internal import _BeeHiveDiscovery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Hive {
    /// Scans the loaded images, recorded as the span `scan` when it found anything.
    func scanRecorded(_ scanner: ImageScanner) -> ImageScanner.Batch {
        timeline.span("scan", category: "scan") { arguments in
            let batch = scanner.scan()
            if batch.sections.isEmpty && batch.problems.isEmpty && batch.unloadedImages.isEmpty {
                arguments.discard()  // nothing loaded or unloaded since the last scan: not worth a span
            } else if arguments.isRecording {
                arguments["sections"] = .integer(batch.sections.count)
                arguments["problems"] = .integer(batch.problems.count)
                arguments["unloadedImages"] = .integer(batch.unloadedImages.count)
            }
            return batch
        }
    }

    /// Writes the shared hive's timeline to the file `BEEHIVE_TRACE` named; at exit. A failure is a diagnostic,
    /// logged.
    static func writeTimelineAtExit() {
        guard let hive = sharedIfCreated else { return }
        do {
            try hive.timeline.write()
        } catch {
            hive.record([Diagnostic(.error, error)])
        }
    }
}

extension HiveTimeline {
    /// Records the scan a constructor made before `main`, as the span `scan.beforeMain` on the main thread.
    ///
    /// The scanner measured its duration but not its start: the span is drawn to end now, when the shared hive
    /// begins, before any other span of this new timeline; its arguments say so.
    func recordWalkBeforeMain(_ statistics: ImageScanner.Statistics) {
        guard statistics.scans > 0, statistics.firstScanNanoseconds > 0 else { return }
        let end = Self.now()
        let duration = min(statistics.firstScanNanoseconds, end)
        append(
            Event(
                name: "scan.beforeMain", category: "scan", startNanoseconds: end - duration,
                durationNanoseconds: duration, thread: Int(getpid()),
                arguments: [
                    "duration": .string("measured by the scanner's constructor"),
                    "start": .string("not measured: drawn to end where the shared hive began"),
                    "imagesLoaded": .integer(statistics.imagesSeen),
                    "imagesWithRecords": .integer(statistics.imagesMarked),
                ]))
    }
}
