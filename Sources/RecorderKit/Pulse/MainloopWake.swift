// A worker's request that the mainloop thread move a stream's data: one defer event, made once, enabled on demand.
import CPulse

/// How a worker has the mainloop thread read or write a stream instead of doing it itself (as cubeb has
/// a stream's first write made there, through the mainloop API): data moves only on the mainloop
/// thread, in callbacks; other threads only ask (this, and control calls under the lock).
///
/// One defer event for the stream's life, so a request allocates nothing. `request` enables it under
/// the lock, which wakes the mainloop; its callback, on the mainloop thread with the lock held, first
/// calls `settle` (disabling it: an enabled defer event runs at every iteration and holds back every
/// other event), then acts. Requests made before the callback ran are served by that one run (no other
/// thread can make one while it runs: it holds the lock). After `free` no callback runs and `request`
/// does nothing.
struct MainloopWake {
    typealias Callback = @convention(c) (UnsafeMutablePointer<pa_mainloop_api>?, OpaquePointer?,
                                         UnsafeMutableRawPointer?) -> Void

    private let api: UnsafeMutablePointer<pa_mainloop_api>?
    private var event: OpaquePointer?

    /// No event: `request` does nothing (a stream's value before its own is made).
    static var none: MainloopWake { MainloopWake(api: nil, event: nil) }

    private init(api: UnsafeMutablePointer<pa_mainloop_api>?, event: OpaquePointer?) {
        self.api = api
        self.event = event
    }

    /// Makes the event, disabled, on `connection`'s mainloop. `callback` begins with `settle`. (libpulse
    /// makes it or aborts, as it does whenever memory runs out; it never returns none.)
    init(on connection: PulseConnection, userdata: UnsafeMutableRawPointer, _ lock: MainloopLock,
         callback: Callback) {
        api = pa_threaded_mainloop_get_api(connection.mainloop)
        event = api.flatMap { api in api.pointee.defer_new(api, callback, userdata) }
        if let api, let event { api.pointee.defer_enable(event, 0) }
    }

    /// Has the callback run on the mainloop thread soon. Under the lock, from any other thread.
    func request(_ lock: MainloopLock) {
        if let api, let event { api.pointee.defer_enable(event, 1) }
    }

    /// Disables the event whose callback is running: the first thing that callback does.
    static func settle(_ api: UnsafeMutablePointer<pa_mainloop_api>?, _ event: OpaquePointer?) {
        if let api, let event { api.pointee.defer_enable(event, 0) }
    }

    /// Frees the event: no callback runs after this. Under the lock (or in a callback). Idempotent.
    mutating func free(_ lock: MainloopLock) {
        if let api, let event { api.pointee.defer_free(event) }
        event = nil
    }
}
