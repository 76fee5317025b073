// Numbers as pictures print them: fixed decimals, a typographic minus.
import Glibc

/// `value` with `decimals` digits after the point and "−" (U+2212) for a negative value; "−∞" and "∞"
/// for infinities, "—" for NaN.
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard !value.isNaN else { return "—" }
    guard value.isFinite else { return value < 0 ? "−∞" : "∞" }
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([abs(value)]) { vsnprintf(&buffer, buffer.count, "%.\(min(max(decimals, 0), 9))f", $0) }
    let digits = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // −0.0 and values that round to zero print without a sign.
    let isZero = digits.allSatisfy { $0 == "0" || $0 == "." }
    return (value < 0 && !isZero ? "−" : "") + digits
}
