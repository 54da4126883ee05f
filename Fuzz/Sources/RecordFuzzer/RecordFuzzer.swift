import FileOracle
import Foundation
import FuzzCheck
@_spi(Testing) import _BeeHiveDiscovery

/// Fuzzes the record section splitter and the record parser.
///
/// The input is the bytes of a record section. Checked for every input:
/// - the splitter's records tile the section exactly (records are the maximal runs of non-NUL bytes, in order,
///   at the offsets they report, terminated unless they reach the end);
/// - the parser never reports an offset outside the record, and every error has a message;
/// - `parseService`'s one-pair fast path gives the same result or error as `ServiceRecord(parse(_:))`;
/// - the parser agrees with Foundation's `JSONSerialization` on the record subset of JSON: what it accepts is JSON
///   with the same values, and a JSON string or flat object of strings, 64-bit integers and booleans is accepted.
@main
enum RecordFuzzer {
    static func main() { runFuzzer(fuzzRecordSection) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRecordSection(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let section = RecordSection(imagePath: "fuzz", sectionName: "beehive_services", kind: .services, bytes: bytes)
    let records = section.records
    checkTiling(records, of: bytes)
    for record in records {
        checkParser(record)
    }
    return 0
}

/// The splitter's records are exactly the runs of non-NUL bytes, in order.
func checkTiling(_ records: [RawRecord], of bytes: UnsafeRawBufferPointer) {
    var expected: [(offset: Int, count: Int)] = []
    var index = 0
    while index < bytes.count {
        if bytes[index] == 0 {
            index += 1
            continue
        }
        let start = index
        while index < bytes.count && bytes[index] != 0 { index += 1 }
        expected.append((start, index - start))
    }
    check(records.count == expected.count, "splitter found \(records.count) records, expected \(expected.count)")
    for (record, run) in zip(records, expected) {
        check(
            record.offset == run.offset && record.bytes.count == run.count,
            "record at \(record.offset) (\(record.bytes.count) bytes), expected \(run.offset) (\(run.count) bytes)")
        check(
            record.bytes.baseAddress == bytes.baseAddress.map { $0 + run.offset },
            "record at offset \(record.offset) does not point into the section at that offset")
        let terminated = run.offset + run.count < bytes.count
        check(
            record.isTerminated == terminated,
            "record at \(record.offset): isTerminated \(record.isTerminated), expected \(terminated)")
        _ = record.excerpt
    }
}

func checkParser(_ record: RawRecord) {
    let general = Result { () throws(RecordError) in try RecordParser.parse(record) }
    if case .failure(let error) = general {
        checkError(error, in: record)
        if !record.isTerminated {
            check(error.kind == .unterminated, "unterminated record reported as \(error.kind): \(error.message)")
        }
    }

    // The fast path must be invisible: same value, same error.
    let fast = Result { () throws(RecordError) in try RecordParser.parseService(record) }
    let slow = Result { () throws(RecordError) in try ServiceRecord(general.get()) }
    check(fast == slow, "parseService gave \(fast), ServiceRecord(parse) gave \(slow) for \(show(record.bytes))")
    if case .success(let service) = fast {
        check(!service.service.isEmpty && !service.implementation.isEmpty, "empty name in \(service)")
        check(service.name?.isEmpty != true, "empty registration name in \(service)")
    }
    if case .failure(let error) = slow { checkError(error, in: record) }

    if case .success(let parsed) = general {
        switch Result(catching: { () throws(RecordError) in try ModuleRecord(parsed) }) {
        case .success(let module): check(!module.module.isEmpty, "module record with an empty name")
        case .failure(let error): checkError(error, in: record)
        }
        switch Result(catching: { () throws(RecordError) in try RouteRecord(parsed) }) {
        case .success(let route): check(!route.pattern.isEmpty && !route.handler.isEmpty, "empty route field")
        case .failure(let error): checkError(error, in: record)
        }
    }

    if record.isTerminated {
        compareWithJSON(record.bytes, parsed: general)
    }
}

func checkError(_ error: RecordError, in record: RawRecord) {
    check(!error.message.isEmpty, "error without a message")
    if let offset = error.byteOffset {
        check(
            offset >= 0 && offset <= record.bytes.count,
            "error offset \(offset) outside the record of \(record.bytes.count) bytes: \(error.message)")
    }
}

// MARK: - Differential check against JSONSerialization

func compareWithJSON(_ bytes: UnsafeRawBufferPointer, parsed: Result<ParsedRecord, RecordError>) {
    let reference = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    switch parsed {
    case .success(let record):
        guard let reference else {
            check(false, "the parser accepted \(show(bytes)), which is not JSON")
            return
        }
        switch record {
        case .string(let text):
            check(
                (reference as? String).map { Array($0.utf8) } == Array(text.utf8),
                "the parser read string \(show(text)) from \(show(bytes)); JSON reads \(reference)")
        case .object(let fields):
            guard let object = reference as? [String: Any] else {
                check(false, "the parser read an object from \(show(bytes)); JSON reads \(reference)")
                return
            }
            // Keys that are different bytes but canonically equal share one slot in a Swift dictionary.
            let keys = fields.map(\.key)
            guard Set(keys).count == keys.count else { return }
            check(object.count == fields.count, "the parser read \(fields.count) keys, JSON \(object.count)")
            for field in fields {
                check(
                    object[field.key].map { matches($0, field.value) } == true,
                    "the parser read \(field.value) for \(show(field.key)) of \(show(bytes)); JSON reads "
                        + "\(object[field.key].map { "\($0)" } ?? "nothing")")
            }
        }
    case .failure(let error):
        guard let reference, !startsWithByteOrderMark(bytes), !hasTrailingComma(bytes), isRecordShaped(reference, bytes)
        else { return }
        // A key given twice is JSON (the last wins) but not a record, whichever of its values the parser stopped at.
        if error.kind == .shape && error.message.contains("twice") { return }
        if hasRepeatedJSONKey(Data(bytes)) { return }
        check(false, "the parser rejected \(show(bytes)), a JSON record (\(error.message))")
    }
}

/// Whether a value JSONSerialization read equals a value the parser read.
func matches(_ value: Any, _ expected: RecordValue) -> Bool {
    switch expected {
    case .string(let text):
        return (value as? String).map { Array($0.utf8) == Array(text.utf8) } ?? false
    case .integer(let integer):
        // JSONSerialization reads integers near the ends of Int64 as decimals.
        if let decimal = value as? NSDecimalNumber { return decimal.description == String(integer) }
        guard let number = value as? NSNumber, isInteger(number) else { return false }
        return number.int64Value == Int64(integer)
    case .bool(let bool):
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c" && number.boolValue == bool
    }
}

/// A JSON string, or an object whose values are strings, 64-bit integers or booleans.
func isRecordShaped(_ value: Any, _ bytes: UnsafeRawBufferPointer) -> Bool {
    if value is String { return true }
    guard let object = value as? [String: Any] else { return false }
    return object.values.allSatisfy { value in
        if value is String { return true }
        if let decimal = value as? NSDecimalNumber {
            // A decimal is an integer of the record format when it fits and is written as an integer literal.
            return Int(decimal.description) != nil && containsIntegerLiteral(decimal.description, bytes)
        }
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c" || isInteger(number)
    }
}

/// Integers of the 64-bit range (JSONSerialization types the larger unsigned ones `Q`).
func isInteger(_ number: NSNumber) -> Bool {
    ["i", "s", "l", "q"].contains(String(cString: number.objCType))
}

/// Whether `literal` follows a ':' (and whitespace) in the bytes and is not followed by a fraction or exponent.
func containsIntegerLiteral(_ literal: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
    let needle = Array(literal.utf8)
    guard bytes.count >= needle.count else { return false }
    for start in 0...(bytes.count - needle.count) where bytes[start..<start + needle.count].elementsEqual(needle) {
        var before = start - 1
        while before >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[before]) { before -= 1 }
        guard before >= 0, bytes[before] == UInt8(ascii: ":") else { continue }
        let after = start + needle.count
        if after == bytes.count || !"0123456789.eE".utf8.contains(bytes[after]) { return true }
    }
    return false
}

/// Whether a ',' outside strings is followed (after whitespace) by '}' or ']': JSONSerialization accepts that,
/// JSON (RFC 8259) and records do not.
func hasTrailingComma(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var inString = false
    var escaped = false
    var afterComma = false
    for byte in bytes {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            continue
        }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
            afterComma = false
        case UInt8(ascii: ","): afterComma = true
        case UInt8(ascii: "}"), UInt8(ascii: "]"): if afterComma { return true }
        case 0x20, 0x09, 0x0A, 0x0D: break
        default: afterComma = false
        }
    }
    return false
}

func startsWithByteOrderMark(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
}

func show(_ bytes: UnsafeRawBufferPointer) -> String {
    show(String(decoding: bytes.prefix(200), as: UTF8.self))
}

func show(_ text: String) -> String {
    "\"" + text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() + "\""
}
