import BeeHive
import Benchmark

/// The fixed costs behind the annotation path, in this (Foundation-linked) benchmark process.
func registerScanBenchmarks() {
    // The floor: 1,000 empty iterations; what the harness itself costs per sample.
    Benchmark("overhead/empty-x1000") { _ in
        for i in 0..<resolvesPerSample { blackHole(i) }
    }

    // A new hive: what every BeeHive mechanism pays before registering anything.
    Benchmark("hive/empty") { _ in
        blackHole(Hive())
    }

    // A scanning hive that registers no section: the walk of every loaded image and the notes of this executable
    // (the only image with a BeeHive note; record format 3: no file is opened). The hive names no section, so none is
    // copied.
    Benchmark("scan/this-process") { benchmark in
        let hive = Hive(options: .init(scansLoadedImages: true, recordSections: []))
        blackHole(hive)
        benchmark.stopMeasurement()
        guard let statistics = hive.scanStatistics, statistics.imagesLoaded > 0, statistics.imagesWithRecords == 1,
            statistics.sectionsFound == 0, statistics.imagesOpened == 0
        else {
            let found = String(describing: hive.scanStatistics)
            fatalError("scan/this-process: expected the records read from memory; found \(found)")
        }
    }

    // rescan() when no image was loaded or unloaded: the first callback of dl_iterate_phdr returns at once.
    let hive = Hive(options: .init(scansLoadedImages: true, recordSections: []))
    Benchmark("rescan/unchanged-x1000") { _ in
        for _ in 0..<resolvesPerSample { blackHole(hive.rescan()) }
    }
}
