// `recorder meter`: the live readout without a file (AudioQueue's metering while not recording).
import ArgumentParser
import RecorderKit
import Synchronization

struct Meter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the levels of a source without recording, until --duration or Ctrl-C.")

    @OptionGroup var serverOptions: ServerOptions

    @Option(help: "Stop after this many seconds of audio.")
    var duration: Double?

    @Option(help: "Sample rate in Hz (the server converts).")
    var rate = 44_100

    @Option(help: "Channel count, 1 to 32.")
    var channels = 1

    @Flag(name: .customLong("levels-json"), help: "One JSON object per buffer on stdout: t, frames, average_db, peak_db.")
    var levelsJSON = false

    func validate() throws {
        if let duration, !(duration.isFinite && duration >= 0) {
            throw ValidationError("invalid duration \(duration): use 0 or more seconds")
        }
        do {
            _ = try StreamFormat(sampleRate: rate, channelCount: channels)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let recorder: Recorder
        do {
            let format = try StreamFormat(sampleRate: rate, channelCount: channels)
            recorder = try Recorder(format: format, source: serverOptions.source, server: serverOptions.server)
        } catch {
            throw fail(error)
        }
        let live = LiveOutput(channelCount: channels, display: LiveOutput.stderrIsTerminal, json: levelsJSON, path: nil)
        let readings = recorder.levelReadings()
        let failure = Mutex<RecorderError?>(nil)
        let events = recorder.events()
        let watcher = Task {
            for await event in events {
                if case .captureFailed(let error) = event {
                    failure.withLock { $0 = error }
                    recorder.stop()
                }
            }
        }
        let signals = StopSignals { recorder.stop() }
        live.start()
        let limit = duration.map { Int64(($0 * Double(rate)).rounded()) }
        var start: Int64?
        if limit != 0 {
            for await reading in readings {
                let first = start ?? (reading.endFrame - Int64(reading.frameCount))
                start = first
                let frames = reading.endFrame - first
                live.take(reading, frames: frames, time: Double(frames) / Double(rate))
                if let limit, frames >= limit { break }
            }
        }
        signals.cancel()
        recorder.stop()
        await watcher.value
        await live.finish()
        if let error = failure.withLock({ $0 }) { throw fail(error) }
    }
}
