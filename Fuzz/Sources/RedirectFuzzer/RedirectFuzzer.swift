import BeeHive
import BeeHiveRouter
import Foundation
import FuzzCheck

/// Fuzzes redirect tables read from JSON (`RedirectTable(json:source:)`) and their resolution.
///
/// The input is the JSON document. Checked for every input:
/// - a document that fails to load fails with `malformedRedirectFile` and a message naming the source;
/// - a loaded table accounts for every entry: each is a rule (in order, equal to the entry's `from` and `to`) or
///   an issue `malformedRedirectEntry` naming its index, never both, never neither;
/// - `maxHops` is respected, from 1 to `RedirectTable.maximumHopsLimit`;
/// - for a URL made to match each rule, resolution either fails with a redirect error or ends at a URL no rule
///   matches, within `maximumHops` redirects, and resolving from its second URL gives the rest of the chain (the
///   time limit catches a chain whose URLs grow without bound).
@main
enum RedirectFuzzer {
    static func main() { runFuzzer(fuzzRedirects) }
}

let source = "fuzz.json"

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRedirects(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let json = Data(UnsafeBufferPointer(start: data, count: size))
    let table: RedirectTable
    do {
        table = try RedirectTable(json: json, source: source)
    } catch {
        check(error.code == .malformedRedirectFile, "loading failed with \(error)")
        check(error.message.hasPrefix("\(source): "), "the message does not name the source: \(error.message)")
        return 0
    }
    checkEntries(table, json)
    for rule in table.rules {
        check(
            (try? RedirectRule(from: rule.from.description, to: rule.to)) == rule,
            "rule '\(rule)' does not rebuild from its normalised source")
        checkResolution(from: rule, in: table)
    }
    return 0
}

/// Every entry of the document is either a rule or an issue.
func checkEntries(_ table: RedirectTable, _ json: Data) {
    // Text that is not UTF-8, or an unpaired surrogate escape (`"\udddb"`), costs only the entry that holds it;
    // Foundation's reader refuses the whole document, so it is no judge of such documents.
    guard String(validating: json, as: UTF8.self) != nil, !hasUnpairedSurrogateEscape(json) else { return }
    // So does a number beyond the range of a 64-bit float (`1e999`), which Foundation refuses too.
    guard !hasNumberBeyondDouble(json) else { return }
    guard let document = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any],
        let entries = document["redirects"] as? [Any]
    else {
        check(false, "a table loaded from a document that is not an object with a \"redirects\" array")
        return
    }
    var issueIndices: Set<Int> = []
    for issue in table.issues {
        check(issue.code == .malformedRedirectEntry, "issue with code \(issue.code): \(issue.message)")
        let prefix = "\(source), redirects["
        guard issue.message.hasPrefix(prefix),
            let close = issue.message.dropFirst(prefix.count).firstIndex(of: "]"),
            let index = Int(
                issue.message[issue.message.index(issue.message.startIndex, offsetBy: prefix.count)..<close])
        else {
            check(false, "issue does not name its entry: \(issue.message)")
            continue
        }
        check(index >= 0 && index < entries.count, "issue names entry \(index) of \(entries.count)")
        check(issueIndices.insert(index).inserted, "two issues for entry \(index)")
    }
    let kept = entries.indices.filter { !issueIndices.contains($0) }
    check(
        kept.count == table.rules.count,
        "\(entries.count) entries, \(table.issues.count) issues, but \(table.rules.count) rules")
    for (index, rule) in zip(kept, table.rules) {
        let entry = entries[index] as? [String: Any]
        let from = (entry?["from"] as? String).flatMap { try? RoutePattern($0) }
        check(
            from == rule.from && entry?["to"] as? String == rule.to,
            "rule \(rule) does not come from entry \(index): \(entries[index])")
    }
    check(
        (1...RedirectTable.maximumHopsLimit).contains(table.maximumHops),
        "maximumHops \(table.maximumHops), expected 1 to \(RedirectTable.maximumHopsLimit)")
    if let hops = document["maxHops"] as? Int {
        check(
            table.maximumHops <= max(hops, RedirectTable.defaultMaximumHops),
            "maxHops \(hops) gave maximumHops \(table.maximumHops)")
    }
}

/// Resolves a URL that the rule's source matches.
func checkResolution(from rule: RedirectRule, in table: RedirectTable) {
    var parameters: [String: String] = ["~": "w/x"]
    for name in rule.from.parameterNames { parameters[name] = "v" }
    let source = fillingMiddleWildcards(rule.from.description)
    guard let url = try? Router.generateURL(pattern: source, parameters: parameters) else {
        check(false, "generateURL failed for the source of '\(rule)'")
        return
    }
    let resolution: RedirectTable.Resolution
    do {
        resolution = try table.resolve(url)
    } catch {
        check(
            [.malformedURL, .redirectLoop, .redirectLimitExceeded, .redirectURLTooLong].contains(error.code),
            "resolving '\(url)' failed with \(error)")
        return
    }
    let chain = resolution.chain
    check(chain.first == url && chain.last == resolution.url, "chain \(chain) does not lead from '\(url)'")
    check(chain.count >= 2, "'\(url)' matches rule '\(rule)' but was not redirected")
    check(
        chain.count - 1 <= table.maximumHops,
        "\(chain.count - 1) redirects for '\(url)', more than maximumHops \(table.maximumHops)")
    let end = try? table.resolve(resolution.url)
    check(end?.chain == [resolution.url], "the chain of '\(url)' ends at '\(resolution.url)', which redirects again")
    if chain.count >= 2 {
        let rest = try? table.resolve(chain[1])
        check(
            rest?.chain == Array(chain.dropFirst()),
            "resolving '\(chain[1])' gives \(rest?.chain ?? []), expected \(Array(chain.dropFirst()))")
    }
}

/// The pattern with each `~` before its last component replaced by the literal `m`: `Router.generateURL` refuses a
/// middle `~` (it stands for any one component and names no value), and the source still matches the URL it makes.
func fillingMiddleWildcards(_ pattern: String) -> String {
    guard let separator = pattern.range(of: "://") else { return pattern }
    // Split on the byte '/', as patterns are (a '/' that a combining mark follows still separates).
    var parts = pattern[separator.upperBound...].utf8.split(separator: UInt8(ascii: "/")).map {
        String(decoding: $0, as: UTF8.self)
    }
    for index in parts.indices.dropLast() where parts[index] == "~" { parts[index] = "m" }
    return pattern[..<separator.upperBound] + parts.joined(separator: "/")
}

/// Whether a JSON text holds a `\uD800`–`\uDFFF` escape that is not half of a high–low pair.
func hasUnpairedSurrogateEscape(_ json: Data) -> Bool {
    let bytes = [UInt8](json)
    func unit(at index: Int) -> UInt16? {
        guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
            let text = String(bytes: bytes[(index + 2)..<(index + 6)], encoding: .ascii)
        else { return nil }
        return UInt16(text, radix: 16)
    }
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "u") {
            index += 2  // another escape, such as \\ (which must not start a \u)
            continue
        }
        guard let first = unit(at: index) else {
            index += 1
            continue
        }
        if (0xDC00...0xDFFF).contains(first) { return true }
        if (0xD800...0xDBFF).contains(first) {
            guard let second = unit(at: index + 6), (0xDC00...0xDFFF).contains(second) else { return true }
            index += 12
            continue
        }
        index += 6
    }
    return false
}

/// Whether a JSON text holds a number (outside strings) that a 64-bit float cannot hold, such as `1e999`.
func hasNumberBeyondDouble(_ json: Data) -> Bool {
    let bytes = [UInt8](json)
    let numberBytes = Set("0123456789+-.eE".utf8)
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            index += 1
            continue
        }
        let start = index
        while index < bytes.count, numberBytes.contains(bytes[index]) { index += 1 }
        if index > start, let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)),
            value.isInfinite
        {
            return true
        }
        index = max(index, start + 1)
    }
    return false
}
