/// JSON's spelling of a string, for the code that writes JSON text: the timeline's Chrome Trace file and the tool's
/// migration of property lists into records.
package enum JSONString {
    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped (`\n`, `\r`, `\t`, or
    /// `\u00XX`); every other character as it is, in UTF-8.
    ///
    /// - Parameter text: The text.
    /// - Returns: The literal, quotes included: `JSONString.quoted("a\"b")` is `"a\"b"` with the quote escaped.
    package static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
