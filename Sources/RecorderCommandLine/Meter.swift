// `recorder meter`: the live readout without a file (AudioQueue's metering while not recording).
import ArgumentParser
import RecorderKit
import Locking

struct Meter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the levels of a source without recording, until --duration or Ctrl-C.",
        discussion: "In a terminal the readout is redrawn in place; elsewhere one line a second goes to stdout (--levels-json: one JSON object per buffer).")

    @OptionGroup var capture: CaptureOptions

    @OptionGroup var display: DisplayOptions

    @Flag(name: .customLong("levels-json"), help: "One JSON object per buffer on stdout: t, frames, average_db, peak_db, and the --meter's values.")
    var levelsJSON = false

    func validate() throws {
        try display.validate(with: capture)
    }

    func run() async throws {
        let recorder = try capture.startRecorder()
        // Without a terminal and without JSON: a plain line a second on stdout, for logs and scripts.
        let live = LiveOutput(channelCount: recorder.format.channelCount, display: LiveOutput.stderrIsTerminal, json: levelsJSON,
                              path: nil, meter: display.meter, target: display.target,
                              plain: !LiveOutput.stderrIsTerminal && !levelsJSON, sources: recorder.sources)
        let readings = try display.readings(from: recorder)
        let failure = Locked<RecorderError?>(nil)
        let events = recorder.events()
        let rate = recorder.format.sampleRate
        let start = Locked<Int64?>(nil)
        let watcher = Task {
            for await event in events {
                if case .captureFailed(let error) = event {
                    failure.withLock { $0 = error }
                    await recorder.stop()
                } else if let report = EventReport(event, start: start.withLock { $0 } ?? 0, rate: rate) {
                    live.report(report)
                }
            }
        }
        StopRequests.shared.arm { _ in Task { await recorder.stop() } }
        if StopRequests.shared.isStopping { await recorder.stop() }
        // Metering's only product is its output: when stdout fails, it stops (the status says why).
        standardOutput.goLive { _ in Task { await recorder.stop() } }
        standardError.goLive()
        live.start()
        let limit = capture.duration.flatMap { recorder.format.frames(seconds: $0) }
        if limit != 0 {
            for await reading in readings {
                let first = start.withLock { start in
                    if start == nil { start = reading.endFrame - Int64(reading.frameCount) }
                    return start!
                }
                let frames = reading.endFrame - first
                live.take(reading, frames: frames, time: Double(frames) / Double(rate))
                if let limit, frames >= limit { break }
            }
        }
        await recorder.stop()
        await watcher.value
        await live.finish()
        if let error = failure.withLock({ $0 }) { throw fail(error) }
    }
}
