// What the page's tests share: `recorder serve` started on a private server with its address read from
// its first line, and plain HTTP requests (curl) with the headers a browser or an attacker would send.
import Foundation
import Testing
import TestSupport

/// A running `recorder serve`: its page's address, its log (stderr) once it ends.
final class ServeProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is only signalled and awaited; `url`/`login` are set in init.
    let process: RunningProcess
    /// The page's address, e.g. http://127.0.0.1:40123/.
    let url: String
    /// The one-time login link, when a token is asked.
    let login: String?
    let port: Int

    /// Starts `recorder serve ARGUMENTS` and returns once it listens (its first stdout line; with
    /// `token`, the login link's line after it).
    init(_ arguments: [String], server: PrivateServer? = nil, environment: [String: String]? = nil, token: Bool = false) async throws {
        process = try RunningProcess(try builtProduct("recorder"), ["serve"] + arguments,
                                     environment: environment ?? server?.clientEnvironment ?? ProcessInfo.processInfo.environment)
        var lines = process.lines.makeAsyncIterator()
        guard let first = await lines.next(), first.hasPrefix("serving http://") else {
            let result = await process.wait()
            throw TestFailure("recorder serve did not start (status \(result.status)): \(result.stderr)")
        }
        url = String(first.dropFirst("serving ".count).prefix { $0 != " " })
        port = Int(url.split(separator: ":").last!.prefix { $0.isNumber })!
        if token {
            guard let second = await lines.next(), second.hasPrefix("log a browser in once with ") else {
                throw TestFailure("recorder serve printed no login link")
            }
            login = String(second.dropFirst("log a browser in once with ".count).prefix { $0 != " " })
        } else {
            login = nil
        }
    }

    /// Stops it (as Ctrl-C) and returns its status and log.
    func stop() async -> (status: Int32, stderr: String) {
        process.send(SIGINT)
        return await process.wait()
    }
}

/// An HTTP exchange's status, headers and body.
struct Exchange {
    let status: Int
    let headers: String
    let body: String
}

/// `METHOD url` with `headers` (each "Name: value") and `body`, through curl (which sends exactly what
/// it is given: Host and Origin included). `output`: write the body to this file instead.
func http(_ method: String, _ url: String, headers: [String] = [], body: String? = nil, output: String? = nil) async throws -> Exchange {
    let folder = try temporaryDirectory(prefix: "recorder-http")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var arguments = ["-s", "-X", method, "-D", folder + "/headers", "-o", output ?? folder + "/body", "-w", "%{http_code}",
                     "--max-time", "60", "--path-as-is", url]
    for header in headers { arguments += ["-H", header] }
    if let body { arguments += ["--data-binary", body, "-H", "Content-Type: application/json"] }
    let command = arguments
    let result = try await offThread { try runProcess("curl", command) }
    guard let status = Int(result.stdout) else { throw TestFailure("curl \(url): \(result.stderr)") }
    let headerText = (try? String(contentsOfFile: folder + "/headers", encoding: .utf8)) ?? ""
    let bodyText = output == nil ? ((try? String(contentsOfFile: folder + "/body", encoding: .utf8)) ?? "") : ""
    return Exchange(status: status, headers: headerText, body: bodyText)
}

/// The JSON object in `text`.
func object(_ text: String) throws -> [String: Any] {
    guard let value = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
        throw TestFailure("not a JSON object: \(text)")
    }
    return value
}

/// Waits (ceiling 60 s, only a hang) until the page's state satisfies `condition`.
func waitForState(_ url: String, headers: [String] = [], _ what: String,
                  _ condition: @escaping ([String: Any]) -> Bool) async throws -> [String: Any] {
    let deadline = monotonicSeconds() + 60
    while monotonicSeconds() < deadline {
        let state = try object(try await http("GET", url + "api/state", headers: headers).body)
        if condition(state) { return state }
        try await Task.sleep(nanoseconds: 50_000_000)
    }
    throw TestFailure("the page's state never showed \(what)")
}

/// `.build/test-artifacts`, where screenshots are kept.
func artifacts() throws -> String {
    let folder = FileManager.default.currentDirectoryPath + "/.build/test-artifacts"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}
