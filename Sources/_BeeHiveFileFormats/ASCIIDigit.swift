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
