// `recorder record OUTPUT`: records until --duration frames or SIGINT/SIGTERM, then finalizes the file.
import ArgumentParser
import Foundation
import RecorderKit

struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record into OUTPUT (.aiff, .aif, .wav, .caf, .flac) until --duration or Ctrl-C.")

    @Argument(help: "The file to write; it must not exist unless --force is given.")
    var output: String

    @OptionGroup var serverOptions: ServerOptions

    @Option(help: "Stop after exactly this many seconds (rounded to whole frames).")
    var duration: Double?

    @Option(help: "Sample rate in Hz (the server converts).")
    var rate = 44_100

    @Option(help: "Channel count, 1 to 32.")
    var channels = 1

    @Flag(help: "Replace OUTPUT if it exists.")
    var force = false

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    @Flag(name: .customLong("levels-json"), help: "One JSON object per buffer on stdout: t, frames, average_db, peak_db.")
    var levelsJSON = false

    func validate() throws {
        if let duration, !(duration.isFinite && duration >= 0) {
            throw ValidationError("invalid duration \(duration): use 0 or more seconds")
        }
        if FileType(path: output) == nil {
            throw ValidationError("cannot tell the file type of '\(output)': end the name in .aiff, .aif, .wav, .caf or .flac")
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
        defer { recorder.stop() }
        let readings = recorder.levelReadings()
        do {
            let limit = duration.map { Int64(($0 * Double(rate)).rounded()) }
            try recorder.record(to: output, overwrite: force, frameLimit: limit)
        } catch {
            throw fail(error, hint: error.code == .fileExists ? "pass --force to replace it" : nil)
        }
        let signals = StopSignals { _ = try? recorder.stopRecording() }
        defer { signals.cancel() }

        let start = recorder.capturedFrames
        var peak = [Float](repeating: LevelMeterState.silence, count: channels)
        for await reading in readings {
            for (channel, state) in reading.channels.enumerated() { peak[channel] = max(peak[channel], state.peakPower) }
            if levelsJSON {
                let t = Double(max(0, reading.endFrame - start)) / Double(rate)
                let line = "{\"t\": \(format(t, 3)), \"frames\": \(max(0, reading.endFrame - start)), "
                    + "\"average_db\": [\(reading.channels.map { format(Double($0.averagePower), 2) }.joined(separator: ", "))], "
                    + "\"peak_db\": [\(reading.channels.map { format(Double($0.peakPower), 2) }.joined(separator: ", "))]}\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
            if !recorder.isRecording { break }
        }
        let summary = recorder.lastRecording
        if let error = summary?.error { throw fail(error) }
        if !quiet, let summary {
            let seconds = Double(summary.frameCount) / Double(rate)
            let peaks = peak.map { format(Double($0), 2) }.joined(separator: ", ")
            FileHandle.standardError.write(Data(("recorded \(summary.path): \(format(seconds, 3)) s, "
                + "\(summary.frameCount) frames, peak [\(peaks)] dBFS, dropped \(summary.droppedFrames) frames\n").utf8))
        }
    }
}

func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

/// Runs `action` once on SIGINT or SIGTERM (off the signal handler, on a dispatch queue).
final class StopSignals: @unchecked Sendable {
    // @unchecked Sendable: `sources` is set once in init and only cancelled afterwards; dispatch sources
    // are thread-safe objects.
    private let sources: [any DispatchSourceSignal]

    init(_ action: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: action)
            source.resume()
            return source
        }
    }

    func cancel() { sources.forEach { $0.cancel() } }
}
