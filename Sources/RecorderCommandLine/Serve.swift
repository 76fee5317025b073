// `recorder serve`: the recorder in a browser — live meters, record/stop/pause, markers, takes, the take
// list with downloads — for boxes with no screen. Loopback unless told; a token on any other address.
import ArgumentParser
import Glibc
import RecorderKit

/// Where the page listens and who may use it: shared by `serve` and `record --serve`.
package struct ServeAccessOptions: ParsableArguments {
    @Option(name: .customLong("token-file"), help: ArgumentHelp(
        "The token's file: read if it exists, else a new token is written there (mode 0600). Default off loopback: a new token in ~/.config/recorder/serve-token. On loopback, giving it asks for the token there too.",
        valueName: "file"))
    package var tokenFile: String?

    @Option(name: .customLong("allow-host"), help: ArgumentHelp(
        "A host name that reaches this machine, allowed in the Host header (its addresses, localhost and its own name always are); repeat for more.",
        valueName: "name"))
    package var allowedHosts: [String] = []

    package init() {}
}

package struct Serve: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        abstract: "Serve a page for a browser: live meters and loudness, record, stop, pause, markers, next take, circle, the take list with downloads.",
        discussion: """
            The page is served by this command (nothing from the internet) at http://ADDRESS:PORT/. It listens \
            on 127.0.0.1:8080 unless --listen says otherwise; any address but loopback needs a token, written \
            to a file only you can read and printed once as a link that logs a browser in (a cookie). Scripts \
            send 'Authorization: Bearer TOKEN'. Levels are pushed as Server-Sent Events (/api/events): each \
            message the --levels-json object of the newest buffer plus the highest peak since the message \
            before. Stop with Ctrl-C: a take in progress is closed first, valid.
            """)

    @Option(name: .customLong("listen"), help: ArgumentHelp("ADDRESS:PORT, [IPv6]:PORT or PORT to listen on (0.0.0.0 for every interface).",
                                                             valueName: "address:port"))
    package var listen: String = "127.0.0.1:8080"

    @Option(help: ArgumentHelp("The take folder: takes are recorded, listed, downloaded and deleted there (default: the current folder).",
                               valueName: "dir"))
    package var folder: String = "."

    @Flag(name: .customLong("read-only"), help: "Meters and the take list only: no control, no delete.")
    package var readOnly = false

    @OptionGroup(title: "Access") package var access: ServeAccessOptions

    @OptionGroup package var options: CaptureOptions

    package init() {}

    package func validate() throws {
        // The address is checked where the page is (recorder-serve, Companion.swift).
        if Companion.hasPage, !(try Companion.page().isAddress(listen)) {
            throw ValidationError("invalid --listen '\(listen)': use PORT, ADDRESS:PORT or [IPv6]:PORT with a numeric address, e.g. 0.0.0.0:8080")
        }
        if options.duration != nil { throw ValidationError("--duration does not apply to serve: each take is started and stopped from the page") }
        if options.sources.count > 1 { throw ValidationError("serve records one source at a time: give one -d (the page chooses among them)") }
    }

    /// The page is `recorder-serve`'s (Companion.swift): this process became it before `run`.
    package func run() async throws {
        try await Companion.page().serve(self)
    }
}
