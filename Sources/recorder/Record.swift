// `recorder record OUTPUT`: records until --duration frames or SIGINT/SIGTERM, then finalizes the file.
import ArgumentParser
import Dispatch
import Glibc
import RecorderKit

struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record into OUTPUT (.aiff, .aif, .wav, .caf, .flac) until --duration or Ctrl-C.")

    @Argument(help: "The file to write; it must not exist unless --force is given.")
    var output: String

    @OptionGroup var capture: CaptureOptions

    @Flag(help: "Replace OUTPUT if it exists.")
    var force = false

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    @Flag(name: .customLong("levels-json"), help: "One JSON object per buffer on stdout: t, frames, average_db, peak_db.")
    var levelsJSON = false

    func validate() throws {
        if FileType(path: output) == nil {
            throw ValidationError("cannot tell the file type of '\(output)': end the name in .aiff, .aif, .wav, .caf or .flac")
        }
    }

    func run() async throws {
        let recorder = try capture.startRecorder()
        let channels = capture.channels
        let display = LiveOutput.stderrIsTerminal && !quiet
        let live = LiveOutput(channelCount: channels, display: display, json: levelsJSON, path: output)
        // Levels only when something shows them: each reading wakes a thread, which is most of the cost
        // of a quiet recording.
        let readings: AsyncStream<LevelReading> = display || levelsJSON ? recorder.levelReadings()
            : AsyncStream { $0.finish() }
        let limit = capture.frameLimit
        let fileStart: Int64
        do {
            fileStart = try recorder.record(to: output, overwrite: force, frameLimit: limit)
        } catch {
            recorder.stop()
            throw fail(error, hint: error.code == .fileExists ? "pass --force to replace it" : nil)
        }
        let signals = StopSignals { _ = try? recorder.stopRecording() }
        live.start()
        let sampleRate = Double(capture.rate)
        let consumer = Task {
            for await reading in readings {
                // Only readings of buffers inside the file: it starts at fileStart and ends at its
                // duration, or where a signal cut it (known once the recording has ended).
                let bufferStart = reading.endFrame - Int64(reading.frameCount)
                let fileEnd = limit.map { fileStart + $0 }
                    ?? (recorder.isRecording ? nil : recorder.lastRecording.map { $0.startFrame + $0.frameCount })
                guard reading.endFrame > fileStart, bufferStart < (fileEnd ?? .max) else { continue }
                let frames = min(reading.endFrame, fileEnd ?? .max) - fileStart
                live.take(reading, frames: frames, time: Double(frames) / sampleRate)
            }
        }
        let summary = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                _ = try? recorder.waitForRecording()
                continuation.resume(returning: recorder.lastRecording)
            }
        }
        signals.cancel()
        recorder.stop()  // ends the level stream after its last reading
        await consumer.value
        await live.finish()
        guard let summary else { throw ExitCode(ExitStatus.other) }
        if !quiet { printSummary(summary, rate: capture.rate) }
        if let error = summary.error { throw fail(error) }
    }

    private func printSummary(_ summary: RecordingSummary, rate: Int) {
        func list(_ values: [String]) -> String { values.count == 1 ? values[0] : "[" + values.joined(separator: ", ") + "]" }
        let seconds = Double(summary.frameCount) / Double(rate)
        let text = "recorded \(summary.path): \(format(seconds, 3)) s, \(summary.frameCount) frames, "
            + "average \(list(summary.levels.map { format(Double($0.averagePower), 2) })) dBFS, "
            + "peak \(list(summary.levels.map { format(Double($0.peakPower), 2) })) dBFS, "
            + "clipped \(list(summary.clippedSamples.map(String.init))) samples, "
            + "dropped \(summary.droppedFrames) frames\n"
        writeError(text)
    }
}

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
