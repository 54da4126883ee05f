import BeeHive
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Measures the annotation scan as the number of loaded images grows: dlopen K tiny shared libraries
// (built by Tools/startup.py, with or without a BeeHive record each), then create a scanning hive
// `repeat` times. Each new hive has a scanner of its own, so every scan is a full walk of the loaded
// images, opening only those with a BeeHive note. Prints one JSON object.

let usage = """
    usage: ScanCost --libs PREFIX --count K [--repeat R] [--rescans M]
      PREFIX   path prefix of the libraries: PREFIX0.so ... PREFIX<K-1>.so (ignored when K is 0)
      K        how many libraries to dlopen (>= 0)
      R        scans to time (> 0, default 200)
      M        rescans with nothing changed to time (> 0, default 100000)
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ScanCost: \(message)\n\(usage)\n".utf8))
    exit(2)
}

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

var prefix: String?
var count: Int?
var repetitions = 200
var rescans = 100_000
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fail("expected a value after \(flag)") }
    switch flag {
    case "--libs": prefix = value
    case "--count":
        guard let k = Int(value), k >= 0 else { fail("expected K >= 0; found '\(value)'") }
        count = k
    case "--repeat":
        guard let r = Int(value), r > 0 else { fail("expected R > 0; found '\(value)'") }
        repetitions = r
    case "--rescans":
        guard let m = Int(value), m > 0 else { fail("expected M > 0; found '\(value)'") }
        rescans = m
    default: fail("unknown argument '\(flag)'")
    }
}
guard let count else { fail("expected --count") }
if count > 0 && prefix == nil { fail("expected --libs with --count > 0") }

// The startup scanner ran before main, over the images loaded at exec (LD_PRELOAD adds some): its walk
// reads notes from memory and opens nothing; images with records are opened when the shared hive is
// first used (now). `firstScanNanoseconds` is that pre-main walk, `openNanoseconds` the part spent in files.
let startup = Hive.shared.scanStatistics

for i in 0..<count {
    let path = "\(prefix!)\(i).so"
    guard dlopen(path, RTLD_NOW | RTLD_LOCAL) != nil else {
        fail("cannot dlopen \(path): \(String(cString: dlerror()))")
    }
}

var scanNanoseconds: [UInt64] = []
var openNanoseconds: [UInt64] = []
var hiveNanoseconds: [UInt64] = []
var statistics: ImageScanStatistics?
var services = 0
for _ in 0..<repetitions {
    let start = now()
    let hive = Hive(options: .init(scansLoadedImages: true))
    let end = now()
    hiveNanoseconds.append(end - start)
    statistics = hive.scanStatistics
    scanNanoseconds.append(statistics?.lastScanNanoseconds ?? 0)
    openNanoseconds.append(statistics?.openNanoseconds ?? 0)
    services = hive.serviceRegistrations.count
}

// rescan() with nothing loaded or unloaded since the last scan.
let hive = Hive(options: .init(scansLoadedImages: true))
let rescanStart = now()
for _ in 0..<rescans { hive.rescan() }
let rescanNanoseconds = Double(now() - rescanStart) / Double(rescans)

func median(_ values: [UInt64]) -> UInt64 {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

let s = statistics!
print(
    """
    {"extraImages": \(count), "imagesLoaded": \(s.imagesLoaded), "imagesWithRecords": \(s.imagesWithRecords), \
    "imagesOpened": \(s.imagesOpened), "servicesRegistered": \(services), "repetitions": \(repetitions), \
    "scanMedianNs": \(median(scanNanoseconds)), "scanMinNs": \(scanNanoseconds.min()!), \
    "openMedianNs": \(median(openNanoseconds)), \
    "hiveMedianNs": \(median(hiveNanoseconds)), "rescanNs": \(rescanNanoseconds), \
    "startupImages": \(startup?.imagesLoaded ?? 0), "startupScanNs": \(startup?.firstScanNanoseconds ?? 0), \
    "startupOpenNs": \(startup?.openNanoseconds ?? 0), \
    "startupScans": \(startup?.scans ?? 0)}
    """)
