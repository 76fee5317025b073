// `recorder play FILE...`: plays files one after another with the live readout; in a terminal, keys
// pause, seek and quit.
import ArgumentParser
import Dispatch
import Glibc
import RecorderKit
import Locking

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play sound files (any format libsndfile reads) with the live readout.",
        discussion: "In a terminal: space pauses and resumes, the left and right arrows seek 5 s, q stops.")

    @Argument(help: "The files to play, one after another; - reads standard input (from a pipe AU, WAV or Ogg; any type from a redirected file).")
    var files: [String]

    @Option(name: [.long, .customShort("d")], help: ArgumentHelp(
        "Playback sink: its name, its index, or its description (exact, or a unique beginning; any case). Default: the server's default sink; see `recorder sinks`.",
        valueName: "sink"))
    var device: String?

    @OptionGroup var connection: ServerOption

    @Option(parsing: .unconditional, help: "Linear gain 0 to 1 (1: the file as it is).")
    var volume: Float = 1

    @Option(parsing: .unconditional, help: "Balance, -1 (left) to 1 (right), for files with left and right channels.")
    var pan: Float = 0

    @Option(name: .customLong("rate"), parsing: .unconditional, help: ArgumentHelp(
        "Speed without changing the pitch, 0.03125 to 32 (2: twice as fast; SoundTouch's time-stretch).", valueName: "factor"))
    var speed: Double = 1

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Pitch shift in cents without changing the speed, -2400 to 2400 (1200: an octave up).", valueName: "cents"))
    var pitch: Double = 0

    @Option(parsing: .unconditional, help: "Play each file this many more times (any negative number: forever, as AVAudioPlayer).")
    var loops = 0

    @Option(parsing: .unconditional, help: "Start this many seconds into each file.")
    var start: Double = 0

    @Option(parsing: .unconditional, help: "Play at most this many seconds of each file (rounded to whole frames).")
    var duration: Double?

    @OptionGroup var display: DisplayOptions

    @Flag(name: .customLong("levels-json"), help: "One JSON object per buffer heard on stdout: t (the position in the file), frames, average_db, peak_db (and the --meter's values); and one per event (\"event\": underrun, finished).")
    var levelsJSON = false

    @Flag(name: [.long, .customShort("q")], help: "No readout and no summary; errors and warnings only.")
    var quiet = false

    @Option(help: ArgumentHelp("Play each file at ReplayGain's -18 LUFS by its loudness tags (ReplayGain, Opus R128, WAV bext), the track's or the album's, never above its own level nor past full scale by its stored peak.", valueName: "track|album"))
    var replaygain: ReplayGainMode?

    enum ReplayGainMode: String, ExpressibleByArgument { case track, album }

    func validate() throws {
        try display.validate()
        if files.isEmpty { throw ValidationError("give at least one file to play") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("give - (standard input) once: it can be read only once") }
        if !(volume.isFinite && volume >= 0 && volume <= 1) {
            throw ValidationError("invalid --volume \(volume): use a gain from 0 to 1, e.g. 0.5 for -6 dB")
        }
        if !(pan.isFinite && pan >= -1 && pan <= 1) {
            throw ValidationError("invalid --pan \(pan): use -1 (left) to 1 (right), 0 for the centre")
        }
        if !(speed.isFinite && speed >= 1.0 / 32 && speed <= 32) {
            throw ValidationError("invalid --rate \(speed): use a speed from 0.03125 to 32, e.g. 1.5 for half as fast again")
        }
        if !(pitch.isFinite && pitch >= -2_400 && pitch <= 2_400) {
            throw ValidationError("invalid --pitch \(pitch): use -2400 to 2400 cents, e.g. 1200 for an octave up")
        }
        if !(start.isFinite && start >= 0 && start < 1e12) {
            throw ValidationError("invalid --start \(start): use a number of seconds, 0 or more")
        }
        if let duration, !(duration.isFinite && duration >= 0 && duration < 1e12) {
            throw ValidationError("invalid --duration \(duration): use a number of seconds, 0 or more")
        }
    }

    func run() async throws {
        // Every file opened (and the sink checked) before a sound is made: a bad name is one line, at once.
        let device = try DeviceMatch.resolve(device, kind: "sink") { () throws(RecorderError) in
            try Player.sinks(server: connection.server)
        }
        var players: [Player] = []
        for file in files {
            do throws(RecorderError) {
                let player = try Player(contentsOf: file, device: device, server: connection.server)
                // A pipe is read once: nothing to go back to for another loop or to skip ahead in.
                if !player.isSeekable && (loops != 0 || start > 0) {
                    await player.close()
                    throw RecorderError(.invalidFormat,
                        "standard input is a pipe: it plays once from its start; leave out "
                        + (loops != 0 ? "--loops" : "--start") + ", or save it to a file and play that")
                }
                if start > player.duration {
                    throw RecorderError(.invalidFormat,
                        "--start \(format(start, 3)) is past the end of '\(file)' (\(format(player.duration, 3)) s)")
                }
                players.append(player)
            } catch {
                for player in players { await player.close() }
                throw fail(error)
            }
        }
        let session = PlaySession()
        StopRequests.shared.arm { _ in session.quit() }
        if StopRequests.shared.isStopping { session.quit() }
        standardOutput.goLive { _ in session.quit() }
        standardError.goLive()
        let keys = LiveOutput.stderrIsTerminal && !quiet ? KeyReader.start { key in
            switch key {
            case .space: session.togglePause()
            case .quit: session.quit()
            case .right: session.seek(by: 5)
            case .left: session.seek(by: -5)
            case .marker, .circle, .noGood: break
            }
        } : nil
        defer { keys?.restore() }
        var failure: RecorderError?
        for player in players {
            if session.isQuitting { break }
            do throws(RecorderError) {
                try await play(player, session: session, keys: keys != nil)
            } catch {
                failure = error
                await player.close()
                break
            }
            await player.close()
        }
        for player in players { await player.close() }
        keys?.restore()
        if let failure { throw fail(failure) }
    }

    /// Plays one file to its end (or a stop), with the readout.
    private func play(_ player: Player, session: PlaySession, keys: Bool) async throws(RecorderError) {
        let drawing = LiveOutput.stderrIsTerminal && !quiet
        let live = LiveOutput(channelCount: player.numberOfChannels, display: drawing, json: levelsJSON, path: nil,
                              meter: display.meter, target: display.target)
        let readings = drawing || levelsJSON ? try display.readings(from: player) : AsyncStream { $0.finish() }
        let events = player.events()
        var gain: Float = 1
        if let replaygain, let path = player.path {
            if let tags = LoudnessTags.read(path: path) {
                gain = tags.playbackGain(album: replaygain == .album)
            } else if !quiet {
                writeLine("recorder: '\(path)' has no loudness tags: played as it is (tag it with recorder analyze --tag)")
            }
        }
        player.volume = volume * gain
        player.pan = pan
        player.numberOfLoops = loops
        if speed != 1 { player.rate = speed }
        if pitch != 0 { player.pitch = pitch }
        if (player.rate != speed || player.pitch != pitch) && !quiet {
            writeLine("recorder: '\(player.path ?? "")' has \(player.numberOfChannels) channels: played at its own speed and "
                      + "pitch (SoundTouch takes 1 to 16)")
        }
        if start > 0 { try player.seek(to: start) }
        let outcome = Locked<(finished: Bool, successfully: Bool, error: RecorderError?)>((false, false, nil))
        let quiet = self.quiet
        let rate = player.format.sampleRate
        let watcher = Task {
            for await event in events {
                switch event {
                case .underrun(let frame):
                    let time = Double(frame) / Double(rate)
                    live.report(EventReport(message: "warning: playback ran dry at \(clock(time)): a gap was heard",
                                            json: "{\"event\": \"underrun\", \"t\": \(format(time, 3))}"))
                case .decodeError(let error, _), .playbackFailed(let error):
                    outcome.withLock { $0.error = error }
                case .finishedPlaying(let successfully):
                    outcome.withLock { $0.finished = true; $0.successfully = successfully }
                    await player.close()
                }
            }
        }
        session.begin(player, live: live)
        if keys { live.setHint("keys: space pause/resume, left/right seek 5 s, q stop") }
        // A length the source does not state (a pipe) is not shown: the clock reads the time heard.
        live.setStatus(nil, total: player.duration > 0 ? player.duration : nil)
        live.start()
        if let duration {
            try player.play(forDuration: duration)
        } else {
            try await player.play()
        }
        if session.isQuitting { await player.close() }
        for await reading in readings {
            live.take(reading, frames: reading.endFrame, time: Double(reading.endFrame) / Double(rate))
        }
        await watcher.value
        session.end()
        await live.finish()
        let (finished, successfully, error) = outcome.withLock { $0 }
        // After the last reading (the readings and the events are two streams: no order between them).
        if finished && levelsJSON {
            writeOutput("{\"event\": \"finished\", \"file\": \(jsonString(player.path ?? "")), \"successfully\": \(successfully)}\n")
        }
        standardOutput.flush(seconds: 0.5)  // the JSON lines before the summary, as for record
        // What the server played (over loops and seeks), not what the header or the options promise;
        // after q, a signal or a failure too (then before its line), as for record.
        if !quiet {
            let seconds = Double(player.heardFrameCount) / Double(rate)
            let name = player.path == "-" ? "standard input" : player.path ?? ""
            writeLine("played \(name): \(format(seconds, 3)) s to \(player.deviceName)"
                      + (finished && successfully && error == nil ? "" : " (stopped)"))
        }
        if let error { throw error }
    }
}

/// The file playing now, for the keys and the stop signals.
final class PlaySession: Sendable {
    private struct State {
        var player: Player?
        var live: LiveOutput?
        var quitting = false
    }
    private let state = Locked(State())

    var isQuitting: Bool { state.withLock { $0.quitting } }

    func begin(_ player: Player, live: LiveOutput) {
        state.withLock {
            $0.player = player
            $0.live = live
        }
    }

    func end() { state.withLock { $0.player = nil; $0.live = nil } }

    /// Stops everything (q, a signal, a stdout that failed): the current file ends, no other starts.
    func quit() {
        let player = state.withLock { state -> Player? in
            state.quitting = true
            return state.player
        }
        guard let player else { return }
        Task { await player.close() }
    }

    /// Space: pause or resume.
    func togglePause() {
        guard let (player, live) = current() else { return }
        if player.isPlaying {
            player.pause()
            live.setStatus("paused")
        } else {
            try? player.play()
            live.setStatus(nil)
        }
    }

    /// Arrows: seek by `seconds` from where it is heard.
    func seek(by seconds: Double) {
        guard let (player, _) = current() else { return }
        player.currentTime = max(0, player.currentTime + seconds)
    }

    private func current() -> (Player, LiveOutput)? {
        state.withLock { state in
            guard let player = state.player, let live = state.live else { return nil }
            return (player, live)
        }
    }
}
