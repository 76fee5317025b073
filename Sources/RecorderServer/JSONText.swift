// JSON text for the server's replies: strings escaped, numbers that JSON can hold (null otherwise).

/// `text` as a JSON string literal.
public func jsonQuoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "<": out += "\\u003c"  // never a closing script tag, should a reply be inlined in a page
        default:
            if scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

/// `value` rounded to `digits` decimals, or null when it is nil or not finite.
public func jsonNumber(_ value: Double?, digits: Int = 2) -> String {
    guard let value, value.isFinite else { return "null" }
    var scale = 1.0
    for _ in 0..<max(0, min(digits, 9)) { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
}
