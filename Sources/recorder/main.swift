// `recorder`: the command (RecorderCommandLine) without the page, which is `recorder-serve`'s: a take, a
// meter or an analysis maps no HTTP server, Foundation networking, curl or TLS.
import RecorderCommandLine

RecorderCommand.start()
