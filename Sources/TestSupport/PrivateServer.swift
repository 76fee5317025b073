// A private PulseAudio server for tests: its own runtime directory and socket, stopped whatever happens.
import Foundation

/// Which server the tests run against: `RECORDER_TEST_SERVER=pipewire` selects a private PipeWire stack
/// (pipewire + wireplumber + pipewire-pulse, see scripts/private-pipewire); anything else, PulseAudio.
public enum ServerKind: String, Sendable {
    case pulseaudio, pipewire

    public static let current: ServerKind =
        ProcessInfo.processInfo.environment["RECORDER_TEST_SERVER"] == "pipewire" ? .pipewire : .pulseaudio
}

/// The package's scripts directory (the harness scripts live there).
private let scriptsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts").path

/// A `pulseaudio` daemon (or, with `ServerKind.pipewire`, a PipeWire stack speaking the PulseAudio
/// protocol) that only the tests talk to, with known sinks and sources:
/// - `rk_mono`: null sink, 1 ch s16le 44.1 kHz (its monitor `rk_mono.monitor` records what is played);
/// - `rk_stereo`: null sink, 2 ch s16le 44.1 kHz;
/// - `rk_sine`: a 1 kHz sine source at 44.1 kHz, amplitude 0.5 (peak −6.02 dBFS, RMS −9.03 dBFS),
///   the server's default source. PulseAudio's module-sine-source delivers it in 2 s bursts; PipeWire
///   has no such module, so there it is a pipe source fed continuously by sox.
/// Null sinks use `norewinds=1` so a player connecting does not make the sink rewind what the monitor
/// has not yet delivered. The daemon exits by itself 30 s after its last client leaves, so even a
/// crashed test run leaves nothing behind for long.
public final class PrivateServer: @unchecked Sendable {
    // @unchecked Sendable: immutable after start; `stop()` is idempotent under `lock`.
    public let directory: String
    private let lock = NSLock()
    private var stopped = false
    private var currentPID: pid_t = 0

    /// The daemon's process id (a new one after `restart()`).
    public var pid: pid_t { lock.withLock { currentPID } }

    /// libpulse address of the server, for `Recorder(server:)` and `PULSE_SERVER`.
    public var address: String { "unix:\(directory)/native" }

    public static let monoSink = "rk_mono"
    public static let stereoSink = "rk_stereo"
    public static let sineSource = "rk_sine"
    public static func manySink(_ index: Int) -> String { "rk_many_\(index)" }

    /// `extraMonoSinks` more mono null sinks, named `manySink(i)` for i in 0..<extraMonoSinks.
    public init(extraMonoSinks: Int = 0) throws {
        directory = try temporaryDirectory(prefix: "recorder-pulse")
        let script = """
            load-module module-native-protocol-unix socket=\(directory)/native auth-anonymous=1
            load-module module-null-sink sink_name=\(Self.monoSink) rate=44100 channels=1 format=s16le norewinds=1
            load-module module-null-sink sink_name=\(Self.stereoSink) rate=44100 channels=2 format=s16le norewinds=1
            load-module module-sine-source source_name=\(Self.sineSource) rate=44100 frequency=1000
            set-default-source \(Self.sineSource)
            set-default-sink \(Self.monoSink)

            """ + (0..<extraMonoSinks).map {
                "load-module module-null-sink sink_name=\(Self.manySink($0)) rate=44100 channels=1 format=s16le norewinds=1\n"
            }.joined()
        try script.write(toFile: directory + "/server.pa", atomically: true, encoding: .utf8)
        currentPID = try start()
    }

    public let kind = ServerKind.current

    /// Starts the daemon on this directory's socket and returns its pid.
    private func start() throws -> pid_t {
        if kind == .pipewire {
            // The stack tears itself down if this process dies without stopping it.
            let result = try runLeavingDaemons(scriptsDirectory + "/private-pipewire", [directory, String(getpid())])
            guard result.status == 0, let pid = readPID() else {
                throw TestFailure("the private PipeWire stack did not start (status \(result.status)): \(result.stderr)")
            }
            return pid
        }
        // --daemonize=yes returns once the daemon has finished starting: the socket is ready then.
        // The idle exit is only a net for a daemon a crashed test run leaves behind: 300 s, since under
        // ThreadSanitizer with forty tests starting at once on two cores a test's first client came more
        // than 30 s after its server started, and found it gone ("Connection refused").
        let result = try runProcess("pulseaudio", [
            "-n", "-F", directory + "/server.pa", "--daemonize=yes", "--exit-idle-time=300",
            "--use-pid-file=yes", "--log-target=file:\(directory)/log",
        ], environment: Self.environment(directory))
        guard result.status == 0, let pid = readPID() else {
            let log = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? ""
            throw TestFailure("pulseaudio did not start (status \(result.status)): \(result.stderr) \(log)")
        }
        return pid
    }

    /// The pid the server wrote (pipewire-pulse's, for PipeWire).
    private func readPID() -> pid_t? {
        guard let text = try? String(contentsOfFile: directory + "/pid", encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Kills the daemon at once (SIGKILL), as a crash would, and waits until it is gone.
    public func crash() async {
        let pid = self.pid
        kill(pid, SIGKILL)
        // Polled on a thread of its own, not on one of the test runner's two cooperative threads.
        _ = try? await offThread { Self.awaitExit(pid) }
    }

    /// Starts the daemon again after `crash()`: same socket, same sinks and sources.
    public func restart() async throws {
        try await offThread { try self.restartBlocking() }
    }

    private func restartBlocking() throws {
        if kind == .pipewire {
            let result = try runLeavingDaemons(scriptsDirectory + "/private-pipewire", ["--restart-pulse", directory])
            guard result.status == 0, let pid = readPID() else {
                throw TestFailure("pipewire-pulse did not restart (status \(result.status)): \(result.stderr)")
            }
            lock.withLock { currentPID = pid }
            return
        }
        // The killed daemon may linger as a zombie until init reaps it, and pulseaudio would take its
        // pid file for a running server: remove it.
        unlink(directory + "/pid")
        let pid = try start()
        lock.withLock { currentPID = pid }
    }

    /// True while the daemon's process lives (a zombie, killed but not yet reaped, counts as gone).
    public var isRunning: Bool { Self.isAlive(pid) }

    private static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !(stat.split(separator: ")").last?.hasPrefix(" Z") ?? false)
    }

    /// Polls for the exit of a process that is not our child (the daemon daemonized), bounded at ~5 s.
    private static func awaitExit(_ pid: pid_t) {
        var polls = 0
        while isAlive(pid) && polls < 500 {
            usleep(10_000)
            polls += 1
        }
    }

    private static func environment(_ directory: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_RUNTIME_PATH"] = directory
        environment["PULSE_STATE_PATH"] = directory
        environment["HOME"] = directory
        environment["PULSE_SERVER"] = "unix:\(directory)/native"
        return environment
    }

    /// The environment a client process needs to reach this server (PULSE_SERVER and friends).
    public var clientEnvironment: [String: String] { Self.environment(directory) }

    /// Runs a PulseAudio client tool (pactl, paplay, …) against this server.
    @discardableResult
    public func run(_ tool: String, _ arguments: [String]) throws -> ProcessResult {
        let result = try runProcess(tool, arguments, environment: clientEnvironment)
        guard result.status == 0 else {
            throw TestFailure("\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result
    }

    /// Moves the one record stream connected to this server to `source` (`pactl move-source-output`).
    public func moveRecordStream(to source: String) throws {
        let outputs = try run("pactl", ["list", "short", "source-outputs"]).stdout.split(separator: "\n")
        guard outputs.count == 1, let index = outputs[0].split(separator: "\t").first else {
            throw TestFailure("expected one record stream on the server, found \(outputs.count)")
        }
        try run("pactl", ["move-source-output", String(index), source])
    }

    /// Plays a sound file into `sink` at 100 % volume and returns when it has been played.
    /// The wait happens on a thread of its own, not on one of the cooperative threads.
    public func play(_ path: String, sink: String = PrivateServer.monoSink) async throws {
        _ = try await offThread { try self.run("paplay", ["--volume=65536", "-d", sink, path]) }
    }

    /// Stops the daemon and waits until it is gone, then removes its directory. Idempotent.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        if kind == .pipewire {
            _ = try? runProcess(scriptsDirectory + "/private-pipewire-stop", [directory, "--rm"])
            return
        }
        kill(currentPID, SIGTERM)
        Self.awaitExit(currentPID)
        if kill(currentPID, 0) == 0 { kill(currentPID, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}

/// Starts a private server, runs `body`, and stops the server whatever happens.
public func withPrivateServer<T>(extraMonoSinks: Int = 0,
                                 _ body: (PrivateServer) async throws -> T) async throws -> T {
    // Starting and stopping block (a daemon starts, a stack stops): off the cooperative threads.
    let server = try await offThread { try PrivateServer(extraMonoSinks: extraMonoSinks) }
    do {
        let result = try await body(server)
        _ = try? await offThread { server.stop() }
        return result
    } catch {
        _ = try? await offThread { server.stop() }
        throw error
    }
}

/// A failure of the test harness itself, with its explanation.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Runs a program found on PATH and collects its exit status and output.
public func runProcess(_ program: String, _ arguments: [String],
                       environment: [String: String]? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe. The
    // standard error is read on a thread of its own, not a dispatch queue: a test calling this from an
    // async function blocks a thread of the cooperative pool, which the global queues share; with every
    // pool thread so blocked, a reader queued there would never run (seen: a suite's ffmpeg calls, beside
    // the tsan stage, stuck until the time limit).
    let done = DispatchSemaphore(value: 0)
    // nonisolated(unsafe): written by the reader thread before it signals `done`, read here only after
    // the wait: the semaphore orders the two.
    nonisolated(unsafe) var errData = Data()
    Thread.detachNewThread {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        done.signal()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    done.wait()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}
