// Who may use the page: the token a listening address needs, read from its file or made and written there.
import Glibc
import ArgumentParser
import RecorderCommandLine
import RecorderServer

extension ServeAccessOptions {
    /// The token the address needs: nil on loopback without --token-file; read or made otherwise.
    func token(for address: ServeAddress) throws -> (token: AccessToken, file: String, made: Bool)? {
        guard !address.isLoopback || tokenFile != nil else { return nil }
        let path = tokenFile ?? Self.defaultTokenFile()
        var status = stat()
        do {
            if stat(path, &status) == 0 { return (try AccessToken.read(path: path), path, false) }
            let token = AccessToken()
            try token.write(path: path)
            return (token, path, true)
        } catch {
            writeLine("recorder: \(error.message)")
            throw ExitCode(ExitStatus.cannotCreate)
        }
    }

    /// ~/.config/recorder/serve-token (the folder made, 0700).
    static func defaultTokenFile() -> String {
        let config = getenv("XDG_CONFIG_HOME").map { String(cString: $0) } ?? ((getenv("HOME").map { String(cString: $0) } ?? ".") + "/.config")
        mkdir(config, 0o700)
        mkdir(config + "/recorder", 0o700)
        return config + "/recorder/serve-token"
    }
}
