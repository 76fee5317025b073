// `record --on-file PROGRAM`, `--on-alarm PROGRAM` and `--webhook URL`: a program run (or a POST made) once for each job (a finished file, an alarm, an event), on a thread of its own, bounded in number and in time.
import Dispatch
import Glibc
import RecorderKit
import Synchronization

/// Runs `PROGRAM ARGUMENTS…` (or another `perform`: a webhook's POST) once for each job (`HookJob`: a file
/// the take has finished, an alarm that began or ended, an event), one at a time, in order, on a thread of
/// its own: the take never waits for it.
///
/// - A program is executed directly (posix_spawnp: a bare name is looked for in PATH; never a shell), with the job's
///   figures (`RECORDER_…`) in its environment in place of any inherited, its standard input /dev/null and
///   its standard output this command's standard error (the level lines on standard output stay the
///   command's own), signals at their defaults and in a process group of its own (a Ctrl-C meant for the
///   take does not cut an upload short).
/// - Bounded: at most `queueLimit` jobs wait; more are left out, counted and reported (a hook slower than
///   the files or alarms come would otherwise pile up for months). Each run is stopped at `timeout`
///   (SIGTERM, then SIGKILL 2 s later).
/// - Every failure (an exit status other than 0, a signal, the time limit, a program that cannot start)
///   is reported at once through `report`, and counted in `outcome`.
package final class HookRunner: Sendable {
    package struct Outcome: Sendable, Equatable {
        package var run = 0
        package var failed = 0
        package var timedOut = 0
        package var leftOut = 0
    }

    static let queueLimit = 64
    let queueLimit: Int
    let timeout: Double
    /// One job's run: nil when it went well, else what went wrong (a phrase). On the runner's thread.
    private let perform: @Sendable (HookJob) -> String?
    private let report: @Sendable (HookJob, String) -> Void
    /// `closeBy`: once `finish()` is called, the monotonic second after which jobs still waiting are left out.
    private let state = Mutex<(queue: [HookJob], outcome: Outcome, closeBy: Double?)>(([], Outcome(), nil))
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// `report(job, what)`: one failure, as a phrase ("exited with status 3").
    package convenience init(program: String, timeout: Double, queueLimit: Int = HookRunner.queueLimit,
                             report: @escaping @Sendable (HookJob, String) -> Void) {
        self.init(timeout: timeout, queueLimit: queueLimit, perform: { Self.run(program, for: $0, timeout: timeout) }, report: report)
    }

    /// `perform(job)`: one run, bounded by `timeout` itself (a POST's own time limit).
    package init(timeout: Double, queueLimit: Int = HookRunner.queueLimit, perform: @escaping @Sendable (HookJob) -> String?,
                 report: @escaping @Sendable (HookJob, String) -> Void) {
        self.perform = perform
        self.queueLimit = queueLimit
        self.timeout = timeout
        self.report = report
        // A queue of its own: its thread blocks in the runs, never a thread of the take's.
        DispatchQueue(label: "rk-hooks").async { [self] in serve() }
    }

    /// A job: queued for the program (left out if `queueLimit` wait already). Any thread.
    package func enqueue(_ job: HookJob) {
        let queued = state.withLock { state -> Bool in
            guard state.closeBy == nil, state.queue.count < queueLimit else {
                state.outcome.leftOut += 1
                return false
            }
            state.queue.append(job)
            return true
        }
        if queued { wake.signal() } else { report(job, "was left out: \(queueLimit) runs were waiting already") }
    }

    /// Waits until every queued job has had its run, and returns the outcome: the jobs still waiting after
    /// `timeout` more seconds are left out (each reported), so the wait is at most twice the time limit
    /// (the run in progress, then that). Blocks: call it off the cooperative pool.
    package func finish() -> Outcome {
        let closeBy = Self.monotonicSeconds() + timeout
        state.withLock { $0.closeBy = closeBy }
        wake.signal()
        done.wait()
        return state.withLock { $0.outcome }
    }

    /// `finish()` awaited off the cooperative pool (it blocks until the last run is over).
    package func finished() async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            DispatchQueue.global().async { continuation.resume(returning: self.finish()) }
        }
    }

    private func serve() {
        while true {
            wake.wait()
            while let job = state.withLock({ state -> HookJob? in state.queue.isEmpty ? nil : state.queue.removeFirst() }) {
                let late = state.withLock { state -> Bool in
                    guard let closeBy = state.closeBy, Self.monotonicSeconds() > closeBy else { return false }
                    state.outcome.leftOut += 1
                    return true
                }
                if late {
                    report(job, "was left out: the take had ended and the hooks' \(format(timeout, 1)) s to finish were up")
                    continue
                }
                let failure = perform(job)
                state.withLock { state in
                    state.outcome.run += 1
                    if let failure {
                        state.outcome.failed += 1
                        if failure.contains("time limit") { state.outcome.timedOut += 1 }
                    }
                }
                if let failure { report(job, failure) }
            }
            if state.withLock({ $0.closeBy != nil && $0.queue.isEmpty }) {
                done.signal()
                return
            }
        }
    }

    /// One run of `program` for `job`, stopped at `timeout`: nil when it exited with status 0, else what went wrong.
    private static func run(_ program: String, for job: HookJob, timeout: Double) -> String? {
        var environment: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if !text.hasPrefix("RECORDER_") { environment.append(text) }
            entry += 1
        }
        environment += job.figures
        let arguments = [program] + job.arguments
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var pid: pid_t = 0
        var started: Int32 = 0
        // A program file open for writing somewhere (being installed, or its descriptor inherited by a child
        // forked meanwhile) cannot be executed (ETXTBSY) for a moment: tried again for up to a second.
        for attempt in 0..<20 {
            started = argv.withUnsafeBufferPointer { argvPointer in
                envp.withUnsafeBufferPointer { envpPointer in
                    posix_spawnp(&pid, program, &actions, &attributes, argvPointer.baseAddress!, envpPointer.baseAddress!)
                }
            }
            guard started == ETXTBSY, attempt < 19 else { break }
            usleep(50_000)
        }
        guard started == 0 else { return "could not start: \(String(cString: strerror(started)))" }
        // Waited for with the time limit: polled, so nothing else waits on the child.
        let deadline = monotonicSeconds() + timeout
        var status: Int32 = 0
        var stopped = false
        while waitpid(pid, &status, WNOHANG) == 0 {
            if !stopped, monotonicSeconds() >= deadline {
                kill(pid, SIGTERM)
                stopped = true
            } else if stopped, monotonicSeconds() >= deadline + 2 {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            usleep(20_000)
        }
        if stopped { return "ran past its \(format(timeout, 1)) s time limit and was stopped" }
        let signal = status & 0x7f
        if signal != 0 { return "was killed by signal \(signal)" }
        let code = (status >> 8) & 0xff
        return code == 0 ? nil : "exited with status \(code)"
    }

    /// Nil when `program` names an executable file (a path, or a name found in PATH); else why not.
    static func refusal(_ program: String) -> String? {
        let candidates = program.contains("/") ? [program]
            : (getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map { "\($0)/\(program)" }
        for candidate in candidates {
            var status = stat()
            if stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 { return nil }
        }
        return program.contains("/") ? "is not an executable file" : "is not a program found in PATH"
    }

    private static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
