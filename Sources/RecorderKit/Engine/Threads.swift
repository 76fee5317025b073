// Starting the package's own threads (no Foundation): a named POSIX thread, or the error to report.
import Glibc

/// Runs `body` on a new POSIX thread (no Foundation) named `name` (what `top -H` and /proc show; at
/// most 15 bytes), returning the handle to join or detach; the errno if the system refused a thread.
func startThread(named name: String, _ body: @escaping @Sendable () -> Void) -> Result<pthread_t, ThreadStartFailure> {
    final class Box: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Box(name, body)).toOpaque()
    let result = pthread_create(&thread, nil, { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        // pthread_setname_np is not in Swift's Glibc module; this is what it does for the calling thread.
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if comm >= 0 {
            let name = Array(box.name.utf8.prefix(15))
            _ = name.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
            close(comm)
        }
        box.body()
        return nil
    }, context)
    guard result == 0 else {
        Unmanaged<AnyObject>.fromOpaque(context).release()
        return .failure(ThreadStartFailure(code: result))
    }
    return .success(thread)
}

/// pthread_create's error (EAGAIN: the system's or the user's thread limit).
struct ThreadStartFailure: Error {
    let code: Int32

    /// The one-line error for `what` ("the delivery thread") not starting.
    func error(starting what: String) -> RecorderError {
        RecorderError(.streamFailed,
            "cannot start \(what): \(String(cString: strerror(code))); the system's thread limit is reached: "
            + "end other programs or raise the limit (ulimit -u), then try again",
            underlying: .init(.posix, code))
    }
}
