// The keys of `record` and `play` in a terminal: read from stdin in raw mode, the terminal put back as
// it was on every way out.
import Dispatch
import Glibc
import RecorderKit
import Locking

/// A key the commands act on.
enum Key: Sendable {
    case space, quit, marker, left, right, circle, noGood
}

/// Reads keys from a terminal on stdin (no line buffering, no echo; Ctrl-C, Ctrl-\ and Ctrl-Z still
/// signal) on a thread of its own, and puts the terminal back as it was.
final class KeyReader: Sendable {
    private let saved: Locked<termios?>

    private init(saved: termios) { self.saved = Locked(saved) }

    /// The reader that must put the terminal back when the process ends (one at a time).
    private static let current = Locked<KeyReader?>(nil)

    /// nil when stdin is not a terminal. `handle` runs on the reader's thread, one key at a time.
    static func start(_ handle: @escaping @Sendable (Key) -> Void) -> KeyReader? {
        // Only in the terminal's foreground: a background job (`recorder record x.aiff &`) would put the
        // shell's terminal in raw mode under its user (measured: the threads here block SIGTTOU, so
        // nothing stopped it) and could read no key anyway.
        guard isatty(STDIN_FILENO) == 1, tcgetpgrp(STDIN_FILENO) == getpgrp() else { return nil }
        // Put in the background later (Ctrl-Z, bg), a read fails instead of stopping the process (the
        // keys end there), and the terminal is still put back at the end, whichever thread does it.
        signal(SIGTTIN, SIG_IGN)
        signal(SIGTTOU, SIG_IGN)
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        let reader = KeyReader(saved: original)
        // Registered before the change: whatever ends the process from here on puts the terminal back.
        current.withLock { $0 = reader }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else {
            reader.restore()
            return nil
        }
        DispatchQueue.global().async {
            var escape: [UInt8] = []
            var byte: UInt8 = 0
            while true {
                let count = read(STDIN_FILENO, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1, reader.isActive else { return }
                if !escape.isEmpty || byte == 0x1B {
                    escape.append(byte)
                    if escape.count == 3 {
                        if escape == [0x1B, 0x5B, 0x43] { handle(.right) }
                        if escape == [0x1B, 0x5B, 0x44] { handle(.left) }
                        escape.removeAll()
                    } else if escape.count == 2 && byte != 0x5B {
                        escape.removeAll()
                    }
                    continue
                }
                switch byte {
                case 0x20: handle(.space)
                case UInt8(ascii: "q"), UInt8(ascii: "Q"): handle(.quit)
                case UInt8(ascii: "m"), UInt8(ascii: "M"): handle(.marker)
                case UInt8(ascii: "c"), UInt8(ascii: "C"): handle(.circle)
                case UInt8(ascii: "n"), UInt8(ascii: "N"): handle(.noGood)
                default: break
                }
            }
        }
        return reader
    }

    private var isActive: Bool { saved.withLock { $0 != nil } }

    /// Puts the terminal back. Idempotent.
    func restore() {
        saved.withLock { saved in
            guard var original = saved else { return }
            tcsetattr(STDIN_FILENO, TCSANOW, &original)
            saved = nil
        }
    }

    /// Puts back the terminal of the reader still active, if any: for the exits that skip the
    /// command's own clean-up (ArgumentParser's `exit`, a stop before the command was armed).
    static func restoreTerminal() {
        current.withLock { $0 }?.restore()
    }
}
