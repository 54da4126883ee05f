extension UInt8 {
    /// The value of this byte as an ASCII digit of `radix` (`0`–`9`, then `a`–`z` or `A`–`Z` above 10), or `nil`
    /// when it is none. Shared by BeeHive's parsers of records, JSON and property lists.
    ///
    /// - Parameter radix: The base, from 2 to 36.
    /// - Returns: The digit's value, less than `radix`.
    package func digitValue(radix: Int) -> Int? {
        let value: Int
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(self - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): value = Int(self - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = Int(self - UInt8(ascii: "A")) + 10
        default: return nil
        }
        return value < radix ? value : nil
    }
}

/// Digits read into a 64-bit integer, most significant first, noting overflow. Accumulated negatively: the negative
/// range is one larger, so `Int.min` fits. Shared by the readers of JSON numbers and `<integer>`s.
///
/// ```swift
/// var number = IntegerAccumulator()
/// for digit in [4, 2] { number.append(digit) }
/// number.value(negative: true)   // -42
/// ```
package struct IntegerAccumulator {
    private var negated = 0
    /// Whether a digit took the value out of the 64-bit range.
    package private(set) var overflowed = false

    package init() {}

    /// Appends the digit `digit` (less than `radix`).
    package mutating func append(_ digit: Int, radix: Int = 10) {
        let (shifted, o1) = negated.multipliedReportingOverflow(by: radix)
        let (next, o2) = shifted.subtractingReportingOverflow(digit)
        overflowed = overflowed || o1 || o2
        negated = next
    }

    /// The value read, with the sign given; nil when it lies outside the 64-bit range.
    package func value(negative: Bool) -> Int? {
        guard !overflowed else { return nil }
        if negative { return negated }
        let (positive, overflow) = (0).subtractingReportingOverflow(negated)
        return overflow ? nil : positive
    }
}
