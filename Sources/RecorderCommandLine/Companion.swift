// The page (`serve`, `record --serve`) lives in a companion executable, `recorder-serve`: `recorder`
// becomes it (execv, same process, same arguments) when a command asks for the page, so that every other
// run maps no HTTP server, no Foundation networking, curl or TLS.
import ArgumentParser
import Glibc
import Locking
import RecorderKit

/// What `recorder-serve` adds to the command: the page. Registered by its `main` before the command is
/// parsed; `recorder` registers nothing and hands such commands to `recorder-serve` instead.
package protocol PageServing: Sendable {
    /// Whether `text` is an address the page can listen on (PORT, ADDRESS:PORT, [IPv6]:PORT).
    func isAddress(_ text: String) -> Bool
    /// `recorder serve`, until a stop request.
    func serve(_ command: Serve) async throws
    /// `record --serve`: the page watching `recorder`, listening before the take begins.
    func attach(_ command: Record, to recorder: Recorder) async throws -> any AttachedPage
}

/// The page of a `record --serve` take.
package protocol AttachedPage: Sendable {
    /// The take's file began at recorder frame `fileStart` (after `record(to:)`).
    func watch(fileStart: Int64)
    /// An alarm began (`on`) or ended, `seconds` into the take: the page shows the alarms that are on, and
    /// lists `json` (its event line) with the other events. Any thread; does not block.
    func alarm(_ kind: String, on: Bool, message: String, seconds: Double, json: String)
    /// Closes the page's view of the take and stops its server (after the take ended).
    func close() async
}

/// Where the page comes from in this process. Any thread.
package enum Companion {
    /// The companion's file name, looked for beside `recorder` and in its `../lib/recorder`.
    package static let pageExecutable = "recorder-serve"

    private static let registered = Locked<(any PageServing)?>(nil)

    /// Called once by `recorder-serve` before the command runs.
    package static func register(_ page: any PageServing) { registered.withLock { $0 = page } }

    /// The page, in `recorder-serve`.
    /// - Throws: `ExitCode(69)` after one line on stderr when this process has none (it could not become
    ///   `recorder-serve`, which `becomePageIfAsked` makes unreachable).
    static func page() throws -> any PageServing {
        if let page = registered.withLock({ $0 }) { return page }
        writeLine("recorder: the page is not in this executable; run it through recorder (\(pageExecutable) beside it)")
        throw ExitCode(ExitStatus.unavailable)
    }

    /// Whether a page was registered (in `recorder-serve`).
    static var hasPage: Bool { registered.withLock { $0 != nil } }

    /// Before parsing: when the arguments ask for the page (`serve`, or `record` with `--serve`) and this
    /// executable has none, replaces the process with `recorder-serve` and the same arguments (signal mask,
    /// descriptors and process ID kept; nothing started yet). Returns when no page is asked for; exits 69
    /// with one line when the companion cannot be found or run.
    static func becomePageIfAsked() {
        guard !hasPage, asksForPage(CommandLine.arguments) else { return }
        var reasons: [String] = []
        let folders = companionFolders()
        for folder in folders {
            let path = folder + "/" + pageExecutable
            guard access(path, X_OK) == 0 else { continue }
            // The arguments as they came, byte for byte (CommandLine.arguments repairs invalid UTF-8).
            execv(path, CommandLine.unsafeArgv)
            reasons.append("\(path): \(String(cString: strerror(errno)))")  // only if execv failed
        }
        let looked = folders.map { $0 + "/" + pageExecutable }.joined(separator: " or ")
        writeLine("recorder: the page needs \(pageExecutable), "
                  + (reasons.isEmpty ? "not found at \(looked)" : "which cannot run (\(reasons.joined(separator: "; ")))")
                  + "; build the package whole (swift build) or reinstall (scripts/install)")
        exitReportingOutput(ExitStatus.unavailable)
    }

    /// The running executable's folder (a build), then its `../lib/recorder` (an install).
    private static func companionFolders() -> [String] {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, Int(PATH_MAX))
        let executable = length > 0 ? String(decoding: path.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard let slash = executable.lastIndex(of: "/") else { return [] }
        return [String(executable[..<slash]), String(executable[..<slash]) + "/../lib/recorder"]
    }

    /// `serve …`, or `record … --serve PORT` / `--serve=PORT` before any `--` (after it, arguments are names).
    static func asksForPage(_ arguments: [String]) -> Bool {
        guard arguments.count > 1 else { return false }
        let rest = arguments.dropFirst(2).prefix { $0 != "--" }
        switch arguments[1] {
        case "serve": return true
        case "record": return rest.contains { $0 == "--serve" || $0.hasPrefix("--serve=") }
        default: return false
        }
    }
}
