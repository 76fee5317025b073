// The classic "AudioRecorder" tutorial class (Apple's Audio Queue Services recording guide, as the iOS
// tutorials wrap it with AVAudioRecorder and a metering timer), ported: the class keeps its shape and
// its calls keep AVAudioRecorder's names; only the settings dictionary and the delegate change (a typed
// `RecorderSettings`, and the events stream in the delegate's place).
//
//     swift run audio-recorder take.aiff 2 [SOURCE]
//
// Records SECONDS of audio with a half-second pause after the first second (the paused time is not in
// the file), printing the meters four times a second, then the delegate's finish.
import Glibc
import RecorderKit

/// The tutorial's class. AVAudioRecorder code ported to Linux reads the same, line for line.
final class AudioRecorder: Sendable {
    private let recorder: Recorder

    /// `AVAudioRecorder(url:settings:)` with `[AVSampleRateKey: 44100, AVNumberOfChannelsKey: 1]`, then
    /// `isMeteringEnabled = true` and `prepareToRecord()`.
    init(path: String, source: String?) throws(RecorderError) {
        recorder = try Recorder(path: path, settings: RecorderSettings(sampleRate: 44_100, numberOfChannels: 1, source: source))
        recorder.isMeteringEnabled = true
        guard recorder.prepareToRecord() else { throw recorder.lastError ?? RecorderError(.invalidState, "cannot prepare") }
    }

    /// `record(forDuration:)`: the recorder closes the file itself once that much is recorded.
    func start(seconds: Double) throws(RecorderError) {
        guard recorder.record(forDuration: seconds) else {
            throw recorder.lastError ?? RecorderError(.invalidState, "cannot record")
        }
    }

    func pause() { recorder.pause() }

    /// AVAudioRecorder resumes with `record()`.
    func resume() { _ = recorder.record() }

    /// The metering timer's body: `updateMeters()`, then the powers of channel 0.
    func levels() -> (average: Float, peak: Float, time: Double) {
        recorder.updateMeters()
        return (recorder.averagePower(forChannel: 0), recorder.peakPower(forChannel: 0), recorder.currentTime)
    }

    /// The take is open, recording or paused (AVAudioRecorder's `isRecording` is false while paused).
    var isTakeOpen: Bool { recorder.isFileOpen }

    /// `audioRecorderDidFinishRecording(_:successfully:)`: the events stream's `recordingFinished`.
    func finished() async -> RecordingSummary? {
        if let last = recorder.lastRecording, !recorder.isFileOpen { return last }
        for await event in recorder.events() {
            if case .recordingFinished(let summary) = event { return summary }
        }
        return recorder.lastRecording
    }

    /// AVAudioRecorder's `stop()` is `stopRecording()`; `Recorder.stop()` also ends capture.
    func close() async { await recorder.stop() }
}

func decibels(_ value: Float) -> String {
    let hundredths = Int((value * 100).rounded())
    let text = (hundredths < 0 ? "-" : "") + "\(abs(hundredths) / 100)." + (abs(hundredths) % 100 < 10 ? "0" : "") + "\(abs(hundredths) % 100)"
    return String(repeating: " ", count: max(0, 7 - text.count)) + text
}

func fail(_ message: String) -> Never {
    let line = Array("audio-recorder: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let seconds = Double(arguments[2]), seconds.isFinite, seconds > 1, seconds <= 3_600 else {
    fail("usage: audio-recorder FILE SECONDS [SOURCE] (SECONDS: more than 1, at most 3600)")
}
let audio: AudioRecorder
do {
    audio = try AudioRecorder(path: arguments[1], source: arguments.count > 3 ? arguments[3] : nil)
    try audio.start(seconds: seconds)
} catch {
    fail(error.message)
}
print("recording \(arguments[1]) for \(seconds) s")
let finished = Task { await audio.finished() }
var tick = 0
while audio.isTakeOpen {
    try? await Task.sleep(for: .milliseconds(250))
    tick += 1
    let (average, peak, time) = audio.levels()
    // The tutorial's pause button, pressed after a second, released half a second later.
    if tick == 4 { audio.pause(); print("paused") }
    if tick == 6 { audio.resume(); print("resumed") }
    if audio.isTakeOpen { print("\(decibels(Float(time))) s  average \(decibels(average)) dBFS  peak \(decibels(peak)) dBFS") }
}
guard let summary = await finished.value else { fail("the recording did not finish") }
await audio.close()
let length = Double(summary.frameCount) / 44_100
print("finished recording \(summary.path): \(decibels(Float(length)).trimmingCharacters()) s, \(summary.frameCount) frames, "
      + "paused \(summary.pauses.count) time(s) (successfully: \(summary.error == nil))")

extension String {
    func trimmingCharacters() -> String { String(drop { $0 == " " }) }
}
