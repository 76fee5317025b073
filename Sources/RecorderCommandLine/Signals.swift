// The command's signals: caught from the first statement of main and handled on one thread, so none
// is lost in the first milliseconds, none kills a recording half-written, and none reaches the Swift
// runtime's crash handler.
import Dispatch
import Glibc
import RecorderKit
import Locking

/// The write end of the signal pipe, for the signal handler (set once, before the handler is installed).
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// Stop requests from signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT), honoured at any moment.
///
/// Before a command arms it (while parsing and connecting), a stop ends the process at once: with
/// status 0 for `record` and `meter`, whose normal end is a stop and which have created nothing yet,
/// and with 128 + the signal for the others, as a shell reports a killed command. Once armed, the
/// first stop runs the command's action (off the signal thread); later ones are ignored, so a second
/// Ctrl-C while a file is being finalized cannot lose it.
package final class StopRequests: Sendable {
    package static let shared = StopRequests()

    private enum Phase {
        case starting(exitStatus: Int32?)
        case armed(@Sendable (Int32) -> Void)
        case stopping(Int32)
    }
    private let phase = Locked(Phase.starting(exitStatus: nil))
    /// What SIGUSR1 does (`record`: drop a marker); nil: nothing.
    private let userAction = Locked<(@Sendable () -> Void)?>(nil)

    /// Signals that stop the command.
    static let stopping: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// Signals that would otherwise kill the process mid-buffer: taken, and ignored unless a command
    /// gives SIGUSR1 a use (`onUserSignal`).
    static let ignored: [Int32] = [SIGUSR1, SIGUSR2, SIGALRM]

    /// Catches the signals with a handler that only writes the signal's number to a pipe, and starts
    /// the thread that reads it. The handler, not `sigwait`: libdispatch's `dispatch_main` (under the
    /// async main) parks the main thread in `sigsuspend` with every signal unblocked, so a signal can
    /// land there whatever this thread blocks; with a handler it is caught wherever it lands. The
    /// signals are also blocked in this thread and so in every thread created after it, so no other
    /// system call is interrupted. SIGPIPE is ignored: a write to a pipe whose reader left fails with
    /// EPIPE, which the output channels report. SIGHUP inherited as ignored (`nohup`) stays ignored.
    /// `stopStatus`: the exit status for a stop that comes before the command is armed.
    func install(stopStatus: Int32?) {
        phase.withLock { $0 = .starting(exitStatus: stopStatus) }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        signalPipe = ends[1]
        var previous = sigaction()
        sigaction(SIGHUP, nil, &previous)
        let hangupIgnored = unsafeBitCast(previous.__sigaction_handler.sa_handler, to: Int.self)
            == unsafeBitCast(SIG_IGN, to: Int.self)
        var set = sigset_t()
        sigemptyset(&set)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = Glibc.write(signalPipe, &byte, 1)
            errno = saved
        }
        sigfillset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for number in Self.stopping + Self.ignored where !(number == SIGHUP && hangupIgnored) {
            sigaddset(&set, number)
            sigaction(number, &action, nil)
        }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
        let readEnd = ends[0]
        var thread = pthread_t()
        let context = UnsafeMutableRawPointer(bitPattern: Int(readEnd) + 1)
        if pthread_create(&thread, nil, { context in
            let descriptor = Int32(Int(bitPattern: context) - 1)
            // This thread takes the signals: blocked everywhere else (main blocked them before creating
            // any thread), so one that comes while main is busy connecting is handled at once here
            // instead of waiting, pending, for main to reach dispatch_main's sigsuspend.
            var mine = sigset_t()
            sigemptyset(&mine)
            for number in StopRequests.stopping + StopRequests.ignored { sigaddset(&mine, number) }
            pthread_sigmask(SIG_UNBLOCK, &mine, nil)
            var byte: UInt8 = 0
            while true {
                let count = Glibc.read(descriptor, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return nil }
                let number = Int32(byte)
                if number == SIGUSR1 {
                    StopRequests.shared.userSignal()
                } else if !StopRequests.ignored.contains(number) {
                    StopRequests.shared.received(number)
                }
            }
        }, context) == 0 {
            pthread_detach(thread)
        }
    }

    /// From now on a stop runs `action` (once, on a thread of its own) instead of ending the process.
    package func arm(_ action: @escaping @Sendable (Int32) -> Void) {
        phase.withLock { phase in
            if case .starting = phase { phase = .armed(action) }
        }
    }

    /// From now on SIGUSR1 runs `action` (on a thread of its own); before, and with nil, it is ignored.
    func onUserSignal(_ action: (@Sendable () -> Void)?) {
        userAction.withLock { $0 = action }
    }

    /// A stop asked from inside the program (the q key): as a SIGINT.
    package func requestStop() {
        received(SIGINT)
    }

    private func userSignal() {
        guard let action = userAction.withLock({ $0 }) else { return }
        DispatchQueue.global().async { action() }
    }

    /// True once a stop has been received (the action has been or is being run).
    package var isStopping: Bool {
        phase.withLock { if case .stopping = $0 { true } else { false } }
    }

    private func received(_ number: Int32) {
        let action = phase.withLock { phase -> (@Sendable (Int32) -> Void)? in
            switch phase {
            case .starting(let exitStatus):
                // Nothing created yet; the lock keeps `arm` (and what follows it) from starting meanwhile.
                _exit(exitStatus ?? 128 + number)
            case .armed(let action):
                phase = .stopping(number)
                return action
            case .stopping:
                return nil
            }
        }
        guard let action else { return }
        DispatchQueue.global().async { action(number) }
    }
}
