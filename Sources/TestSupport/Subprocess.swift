// Built executables run as subprocesses: found next to the tests, with their stdout read line by line.
import Foundation

/// The path of an executable built with the package (the tests run from the same build directory).
public func builtProduct(_ name: String) throws -> String {
    let candidates = [Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path]
        + (CommandLine.arguments.first.map {
            [URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent(name).path]
        } ?? [])
    if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
    throw TestFailure("\(name) is not built next to the tests; run `swift build --build-tests` first")
}

/// A running program whose stdout arrives as an AsyncStream of lines, and whose stderr is collected.
public final class RunningProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is only started in init and then signalled/awaited; the stderr
    // buffer is guarded by `lock`.
    private let process = Process()
    private let lock = NSLock()
    private var errorText = Data()
    private let errorDone = DispatchSemaphore(value: 0)

    /// stdout, one element per line (without the newline); ends when the program closes stdout.
    public let lines: AsyncStream<String>

    public init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        lines = stream
        let reader = out.fileHandleForReading
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            continuation.finish()
        }
        let errors = err.fileHandleForReading
        Thread.detachNewThread { [self] in
            let data = errors.readDataToEndOfFile()
            lock.lock()
            errorText = data
            lock.unlock()
            errorDone.signal()
        }
        try process.run()
    }

    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    public var pid: pid_t { process.processIdentifier }

    /// Waits for the exit and returns the status and all of stderr, on a thread of its own: a test's
    /// task must not hold one of the runner's two cooperative threads while a child runs.
    public func wait() async -> (status: Int32, stderr: String) {
        // offThread only rethrows what its body throws; this body throws nothing.
        (try? await offThread { self.waitBlocking() }) ?? (-1, "")
    }

    /// Waits for the exit on the calling thread (not from a task: see `wait()`).
    public func waitBlocking() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        errorDone.wait()  // the reader finishes when the pipe closes, at the exit
        errorDone.signal()
        lock.lock()
        defer { lock.unlock() }
        return (process.terminationStatus, String(decoding: errorText, as: UTF8.self))
    }
}

/// Runs `body` with a tmpfs of `size` mounted at a fresh directory (a full disk on demand), unmounting it
/// afterwards. Needs root (CI runs as root); elsewhere it throws, saying so.
/// `readOnly`: mounted read-only instead (a read-only filesystem on demand).
public func withTinyDisk<T>(size: String = "64k", readOnly: Bool = false,
                            _ body: (String) async throws -> T) async throws -> T {
    let mountPoint = try temporaryDirectory(prefix: "recorder-tiny")
    let mount = try runProcess("mount", ["-t", "tmpfs", "-o", "size=\(size)" + (readOnly ? ",ro" : ""), "tmpfs", mountPoint])
    guard mount.status == 0 else {
        throw TestFailure("cannot mount a tmpfs here (\(mount.stderr)); run the tests as root to check disk-full handling")
    }
    defer { _ = try? runProcess("umount", [mountPoint]) }
    return try await body(mountPoint)
}

/// Runs blocking `body` (a subprocess, a build) on a thread of its own and awaits it, so the two
/// cooperative threads of this machine stay free for the tests' own awaits.
@discardableResult
public func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// Runs a program that leaves daemons behind (a server stack, tmux) through python3's subprocess with
/// `close_fds`: swift-corelibs-foundation's Process watches a descriptor that such daemons would
/// otherwise inherit and keep open, and then never sees the program exit. The daemons start with no
/// signal blocked, as from a login: a test runs on a libdispatch worker thread, which blocks nearly
/// every signal, and Process passes that mask on (a shell in tmux would then never see SIGHUP).
public func runLeavingDaemons(_ program: String, _ arguments: [String],
                              environment: [String: String]? = nil) throws -> ProcessResult {
    let launcher = "import signal, subprocess, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
        + "r = subprocess.run(sys.argv[1:], close_fds=True, "
        + "stdin=subprocess.DEVNULL, capture_output=True); sys.stdout.buffer.write(r.stdout); "
        + "sys.stderr.buffer.write(r.stderr); sys.exit(r.returncode)"
    return try runProcess("python3", ["-c", launcher, program] + arguments, environment: environment)
}

/// `executable ARGS` as a command line (for `RunningProcess`) that starts it with no signal blocked, as
/// from a shell: a test runs on a libdispatch worker thread, which blocks nearly every signal, and
/// Process passes that mask on, so the child would never see the SIGINT a test sends it.
public func unblockingSignals(_ executable: String, _ arguments: [String]) -> (String, [String]) {
    ("/usr/bin/env", ["python3", "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
                      + "os.execv(sys.argv[1], sys.argv[1:])", executable] + arguments)
}

/// CLOCK_MONOTONIC in seconds, for timing faults the tests inject.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
