// Terminal and pipe output without Foundation (it would add ~8 MB and ~10 ms to every start).
import Glibc

/// Writes all of `text` to a file descriptor, unbuffered: each call reaches the pipe or terminal at once.
func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

func writeError(_ text: String) { write(text, to: STDERR_FILENO) }
func writeOutput(_ text: String) { write(text, to: STDOUT_FILENO) }

/// `value` with `decimals` digits after the point, as printf's %.Nf.
func format(_ value: Double, _ decimals: Int) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.\(decimals)f", $0) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A JSON string literal for `text`.
func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

/// An environment variable, if set.
func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
