/// Property-list dates: seconds since 2001-01-01T00:00:00Z, written `YYYY-MM-DDTHH:MM:SSZ` in XML.
///
/// The proleptic Gregorian calendar, years 0001 to 9999, computed here so that the file readers need no
/// calendar library.
enum FileDate {
    /// Days from 0001-01-01 to 2001-01-01.
    private static let referenceDay = daysBefore(year: 2001)
    private static let cumulativeDays = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]

    /// The seconds since 2001 of an XML plist `<date>` (`2024-05-01T12:00:00Z`), or nil if `text` is not one.
    static func seconds(_ text: some Collection<UInt8>) -> Double? {
        let b = Array(text)
        guard b.count == 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in b[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days =
            daysBefore(year: year) + cumulativeDays[month - 1] + (month > 2 && isLeap(year) ? 1 : 0) + day - 1
        return Double((days - referenceDay) * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// `seconds` since 2001 as `YYYY-MM-DDTHH:MM:SSZ` (fractions dropped), or as a count of seconds when
    /// the date is not within the years 0001 to 9999.
    static func text(_ seconds: Double) -> String {
        let first = Double(-referenceDay) * 86_400
        let last = Double(daysBefore(year: 10_000) - referenceDay) * 86_400
        guard seconds.isFinite, seconds >= first, seconds < last else {
            return "\(seconds) seconds from 2001-01-01T00:00:00Z"
        }
        let total = Int(seconds.rounded(.down)) + referenceDay * 86_400
        var days = total / 86_400
        let time = total % 86_400
        var year = 1 + days / 146_097 * 400
        days %= 146_097
        while days >= (isLeap(year) ? 366 : 365) {
            days -= isLeap(year) ? 366 : 365
            year += 1
        }
        var month = 1
        while days >= daysIn(month: month, year: year) {
            days -= daysIn(month: month, year: year)
            month += 1
        }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let yearText = String(repeating: "0", count: 4 - String(year).count) + String(year)
        return
            "\(yearText)-\(two(month))-\(two(days + 1))T\(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysBefore(year: Int) -> Int {
        let y = year - 1
        return 365 * y + y / 4 - y / 100 + y / 400
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
