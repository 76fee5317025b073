// Terminal and pipe output without Foundation (it would add ~8 MB and ~10 ms to every start): checked
// writes for the one-shot commands, and for `record`/`meter` a queue per descriptor with a writer of
// its own, so a reader that stalls or leaves never holds up a recording or its stop.
import Dispatch
import Glibc
import RecorderKit
import Locking

/// Where a descriptor's failure is kept: the first errno, and whether it has been reported.
private struct OutputFailure {
    var errno: Int32?
    var reported = false
}

/// Output to one descriptor. In `live` mode (record, meter) text is queued (at most `capacity` bytes,
/// past that it is dropped and counted) and written by a serial dispatch queue, so callers never
/// block; otherwise it is written at once. Either way the first failure (EPIPE when the reader left,
/// ENOSPC on /dev/full, EBADF when the descriptor was closed) is kept, later text is dropped, and
/// `onFailure` is called once.
package final class OutputChannel: Sendable {
    let descriptor: Int32
    /// "standard output" / "standard error", for messages.
    let name: String
    private let capacity: Int
    private struct State {
        var live = false
        var queued: [UInt8] = []
        var writing = false
        var failure = OutputFailure()
        /// Closed when the process started: the first write fails with EBADF, as it would have.
        var closedAtStart = false
        var droppedBytes = 0
        var onFailure: (@Sendable (Int32) -> Void)?
        /// A flush ran out of patience: the reader is not reading.
        var gaveUp = false
    }
    private let state = Locked(State())
    private let writer: DispatchQueue
    private let busy = DispatchGroup()

    init(descriptor: Int32, name: String, capacity: Int = 1 << 20) {
        self.descriptor = descriptor
        self.name = name
        self.capacity = capacity
        writer = DispatchQueue(label: "recorder.output.\(descriptor)")
    }

    /// Queue from now on instead of writing at once (record and meter), calling `onFailure` (from the
    /// writer) once if the descriptor fails.
    package func goLive(onFailure: (@Sendable (Int32) -> Void)? = nil) {
        state.withLock {
            $0.live = true
            $0.onFailure = onFailure
        }
    }

    /// Marks the descriptor as closed when the process started (it now points at /dev/null): the
    /// first write fails with EBADF. A command that writes nothing there is not affected.
    func markClosed() {
        state.withLock { $0.closedAtStart = true }
    }

    /// Whether the descriptor was closed when the process started (see `markClosed`).
    var wasClosedAtStart: Bool { state.withLock { $0.closedAtStart } }

    /// The first errno writing failed with, if any.
    var failure: Int32? { state.withLock { $0.failure.errno } }

    /// Bytes that were not written: queued after a failure or past the capacity.
    var droppedBytes: Int { state.withLock { $0.droppedBytes } }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        enum Next { case done, writeNow, startWriter }
        let (next, report) = state.withLock { state -> (Next, (@Sendable (Int32) -> Void, Int32)?) in
            if state.closedAtStart && state.failure.errno == nil { state.failure.errno = EBADF }
            if let code = state.failure.errno {
                state.droppedBytes += bytes.count
                return (.done, Self.takeReport(&state).map { ($0, code) })
            }
            guard state.live else { return (.writeNow, nil) }
            guard state.queued.count + bytes.count <= capacity else {
                state.droppedBytes += bytes.count
                return (.done, nil)
            }
            state.queued += bytes
            if state.writing { return (.done, nil) }
            state.writing = true
            return (.startWriter, nil)
        }
        if let (callback, code) = report { callback(code) }
        switch next {
        case .done: break
        case .writeNow:
            if let code = writeAll(bytes) { failed(code, dropping: bytes.count) }
        case .startWriter:
            busy.enter()
            writer.async { [self] in
                drain()
                busy.leave()
            }
        }
    }

    /// The failure callback, once: nil if already reported (or none set).
    private static func takeReport(_ state: inout State) -> (@Sendable (Int32) -> Void)? {
        guard !state.failure.reported else { return nil }
        state.failure.reported = true
        return state.onFailure
    }

    /// Writer side: writes what is queued until nothing is left or the descriptor fails.
    private func drain() {
        while true {
            let chunk = state.withLock { state -> [UInt8]? in
                guard !state.queued.isEmpty, state.failure.errno == nil else {
                    state.writing = false
                    return nil
                }
                defer { state.queued.removeAll(keepingCapacity: true) }
                return state.queued
            }
            guard let chunk else { return }
            if let code = writeAll(chunk) {
                failed(code, dropping: 0)
                state.withLock { state in
                    state.droppedBytes += state.queued.count
                    state.queued.removeAll()
                    state.writing = false
                }
                return
            }
        }
    }

    private func failed(_ code: Int32, dropping: Int) {
        let report = state.withLock { state -> (@Sendable (Int32) -> Void)? in
            if state.failure.errno == nil { state.failure.errno = code }
            state.droppedBytes += dropping
            return Self.takeReport(&state)
        }
        report?(code)
    }

    /// Writes all of `bytes`; the errno if that failed.
    private func writeAll(_ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }

    /// Waits up to `seconds` for the queue to be written; true if it was (or nothing was queued). A reader
    /// that let one wait run out is not waited for again: the patience is given once per run.
    @discardableResult
    package func flush(seconds: Double) -> Bool {
        let patience = state.withLock { $0.gaveUp } ? 0 : seconds
        let done = busy.wait(timeout: .now() + patience) == .success
        if !done { state.withLock { $0.gaveUp = true } }
        return done
    }

    /// Bytes still queued (a reader that stopped reading).
    var pendingBytes: Int { state.withLock { $0.queued.count } }
}

package let standardOutput = OutputChannel(descriptor: STDOUT_FILENO, name: "standard output")
package let standardError = OutputChannel(descriptor: STDERR_FILENO, name: "standard error")

func writeError(_ text: String) { standardError.write(text) }

/// Writes one line of a message on stderr, its control characters made visible (`visible`): a file,
/// source or marker name may hold any byte but NUL, and the terminal must not act on them.
package func writeLine(_ text: String) { standardError.write(visible(text) + "\n") }

/// `text` with every control character (C0, DEL, C1) written as `\xHH`, so that a name holding an
/// escape sequence, a carriage return or a newline prints as what it is, on one line.
func visible(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
        if isControl(scalar) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            result += "\\x" + (hex.count < 2 ? "0" : "") + hex
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// Bytes that may not be UTF-8 (an argument as the system gave it), shown as `visible` shows text: what
/// is UTF-8 as itself, control characters and every byte that is not UTF-8 as `\xHH`.
func visibleBytes(_ bytes: [UInt8]) -> String {
    var text = ""
    var index = 0
    while index < bytes.count {
        let lead = bytes[index]
        let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b1_1110 ? 4 : 0
        if length > 0, index + length <= bytes.count,
           let scalar = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
            text += visible(scalar)
            index += length
        } else {
            let hex = String(lead, radix: 16, uppercase: true)
            text += "\\x" + (hex.count < 2 ? "0" : "") + hex
            index += 1
        }
    }
    return text
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}
package func writeOutput(_ text: String) { standardOutput.write(text) }

/// A descriptor closed when the process started (`>&-`) would be taken by the next file opened (the
/// recording, or the server's socket) and output would land there: point it at /dev/null and remember.
/// Call first thing in main.
func guardStandardDescriptors() {
    for (descriptor, channel) in [(STDIN_FILENO, nil), (STDOUT_FILENO, standardOutput), (STDERR_FILENO, standardError)] {
        guard fcntl(descriptor, F_GETFD) == -1, errno == EBADF else { continue }
        let null = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
        if null >= 0 && null != descriptor {
            dup2(null, descriptor)
            Glibc.close(null)
        }
        channel?.markClosed()
    }
}

/// What a failed descriptor's errno means, in words a user can act on.
func describeOutputFailure(_ code: Int32, _ name: String) -> String {
    switch code {
    case EPIPE: return "\(name) was closed by its reader (\(String(cString: strerror(code))))"
    case EBADF: return "\(name) is closed (\(String(cString: strerror(code))))"
    default: return "writing to \(name) failed: \(String(cString: strerror(code)))"
    }
}

/// Waits (at most `seconds`: a reader that is merely behind catches up in that time, one that stopped
/// reading must not hold up the exit) for queued output, then, if standard output failed or could not
/// take everything, says so once on stderr. Returns the exit status that reflects it (74), or nil.
func finishOutput(seconds: Double = 0.5) -> Int32? {
    let outputDone = standardOutput.flush(seconds: seconds)
    var status: Int32?
    if let code = standardOutput.failure {
        writeError("recorder: \(describeOutputFailure(code, "standard output")); "
                   + "\(standardOutput.droppedBytes) bytes of output were not written\n")
        status = ExitStatus.ioError
    } else if !outputDone {
        writeError("recorder: standard output did not take the last \(standardOutput.pendingBytes) bytes within "
                   + "\(format(seconds, 1)) s (its reader is not reading); they were dropped\n")
        status = ExitStatus.ioError
    } else if standardOutput.droppedBytes > 0 {
        writeError("recorder: standard output was read too slowly: \(standardOutput.droppedBytes) bytes of output "
                   + "were dropped\n")
        status = ExitStatus.ioError
    }
    standardError.flush(seconds: seconds)
    return status
}

/// `value` with `decimals` digits after the point, as printf's %.Nf.
package func format(_ value: Double, _ decimals: Int) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.\(decimals)f", $0) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A JSON string literal for `text`.
package func jsonString(_ text: String) -> String {
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
