import BeeHive
import Foundation
import RegistrationKit

// The size of `hive.report()` as JSON, and the time to make it, for a tier's program (issue 31):
//
//     ReportSize <N> [declared|created] [repeats]
//
// builds the hive of tier N's annotation records (mechanism (a): the records of this image's section
// `bench_services_<N>`), in state `declared` (registered, nothing resolved) or `created` (every service resolved once
// by type first), then `repeats` times (default 21) takes `hive.report()` and encodes it with `JSONEncoder` twice: as
// `beehive inspect --format report` writes it (pretty-printed, keys sorted, slashes not escaped) and compact (keys
// sorted, slashes not escaped, as the PluginServer's `GET /debug/beehive` serves it). Prints
// `services=<n> pretty_bytes=<b> compact_bytes=<b> report_ns=<median> encode_ns=<median of the pretty encoding>`.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ReportSize: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let n = Int(arguments[1]) else {
    fail("usage: ReportSize <N> [declared|created] [repeats]; tiers built: \(compiledTiers.map(\.count))")
}
guard let tier = compiledTiers.first(where: { $0.count == n }) else {
    fail("tier \(n) is not built (tiers built: \(compiledTiers.map(\.count)))")
}
let state = arguments.count > 2 ? arguments[2] : "declared"
guard state == "declared" || state == "created" else { fail("expected declared or created; found \(state)") }
let repeats = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 21
guard repeats > 0 else { fail("expected repeats > 0") }

let hive = buildHive(.annotations, tier)
if state == "created" {
    do { try tier.resolveByType(hive) } catch { fail("first use: \(error)") }
}

let pretty = JSONEncoder()
pretty.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
let compact = JSONEncoder()
compact.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]

func nanoseconds(_ body: () throws -> Void) rethrows -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return DispatchTime.now().uptimeNanoseconds - start
}

var reportTimes: [UInt64] = []
var encodeTimes: [UInt64] = []
var report = hive.report()  // once before the timed rounds
var prettyBytes = 0
var compactBytes = 0
do {
    for _ in 0..<repeats {
        reportTimes.append(nanoseconds { report = hive.report() })
        try encodeTimes.append(nanoseconds { prettyBytes = try pretty.encode(report).count })
        compactBytes = try compact.encode(report).count
    }
} catch {
    fail("encoding: \(error)")
}
guard report.services.count == n else { fail("the report has \(report.services.count) services; expected \(n)") }
let median = { (times: [UInt64]) in times.sorted()[times.count / 2] }
print(
    "services=\(report.services.count) state=\(state) pretty_bytes=\(prettyBytes) compact_bytes=\(compactBytes) "
        + "report_ns=\(median(reportTimes)) encode_ns=\(median(encodeTimes)) repeats=\(repeats)")
