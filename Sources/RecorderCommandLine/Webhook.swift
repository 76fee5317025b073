// `record --webhook URL`: each event POSTed as the JSON object --levels-json prints for it, through libcurl,
// loaded the first time one is sent.
import CWebhook
import RecorderKit

/// The POST of one event to a `--webhook` URL: `Content-Type: application/json`, the body the event's
/// `--levels-json` line (one object, no newline); http or https, no redirect followed, the answer's body
/// discarded. A status from 200 to 299 is delivered; anything else is a failure said in a phrase.
///
/// libcurl (libcurl.so.4: Debian's libcurl4) is `dlopen`ed on first use, so a take without --webhook never
/// maps it, nor the TLS libraries it brings.
package enum Webhook {
    static let library = LazyLibrary(["libcurl.so.4", "libcurl-gnutls.so.4"], what: "libcurl (libcurl.so.4)", debian: "libcurl4")

    /// libcurl's functions, looked up once. Any thread.
    static func calls() throws(RecorderError) -> rk_curl_calls {
        func find(_ name: String) throws(RecorderError) -> UnsafeMutableRawPointer {
            try library.function(name, as: UnsafeMutableRawPointer.self)
        }
        return rk_curl_calls(easy_init: try find("curl_easy_init"), easy_setopt: try find("curl_easy_setopt"),
                             easy_perform: try find("curl_easy_perform"), easy_getinfo: try find("curl_easy_getinfo"),
                             easy_cleanup: try find("curl_easy_cleanup"), slist_append: try find("curl_slist_append"),
                             slist_free_all: try find("curl_slist_free_all"))
    }

    /// Nil when `url` can be posted to (http:// or https://, a host, libcurl loads); else why not, as a phrase.
    package static func refusal(_ url: String) -> String? {
        let lowered = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }) else {
            return "is not an http:// or https:// URL"
        }
        // The authority: up to the path, query or fragment; the host after any user and before any port.
        let authority = url.dropFirst(scheme.count).prefix { !"/?#".contains($0) }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let host = hostAndPort.hasPrefix("[") ? hostAndPort.prefix { $0 != "]" }.dropFirst()
            : hostAndPort.prefix { $0 != ":" }
        guard !host.isEmpty, !url.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } ?? false }) else {
            return "names no host (or holds a space)"
        }
        do throws(RecorderError) { _ = try calls() } catch { return "cannot be used: \(error.message)" }
        return nil
    }

    /// `url` as a line may show it: any user and password in it replaced by "…" (a line goes to logs).
    package static func shown(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { !"/?#".contains($0) }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd.upperBound]) + "…" + String(rest[at...])
    }

    /// POSTs `body` to `url` within `timeout` seconds: nil when the server answered 2xx, else what went wrong.
    /// Blocks for the transfer: call it from the runner's own thread.
    static func post(_ body: String, to url: String, timeout: Double) -> String? {
        let functions: rk_curl_calls
        do throws(RecorderError) { functions = try calls() } catch { return "could not be sent: \(error.message)" }
        var calls = functions
        var reason = [CChar](repeating: 0, count: 512)
        let milliseconds = Int(min(max(timeout, 0.001), 86_400) * 1_000)
        let status = rk_webhook_post(&calls, url, body, milliseconds, &reason, reason.count)
        if status == -1 { return "was not answered within its \(format(timeout, 1)) s time limit" }
        if status == 0 {
            return "could not be sent: " + String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return (200...299).contains(status) ? nil : "was answered with HTTP status \(status)"
    }
}
