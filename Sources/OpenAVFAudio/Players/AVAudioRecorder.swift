// AVAudioRecorder: a file recorded from the default source with Apple's names, over RecorderKit's
// Recorder; its delegate is told on the main queue when a recording ends or fails.
import Foundation
import Locking
import RecorderKit

/// What an AVAudioRecorder tells its delegate, on the main queue. Not isolated to the main actor (Apple's
/// is not, in any SDK): a class adopting it is made and used from any code. Both methods have empty
/// defaults.
public protocol AVAudioRecorderDelegate: NSObjectProtocol {
    /// A recording ended: by `stop()`, by the end of `record(forDuration:)`, or by a failure (`flag` false).
    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool)
    /// Writing or capturing failed; the file holds what was recorded before.
    func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: (any Error)?)
}

extension AVAudioRecorderDelegate {
    public func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) {}
    public func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: (any Error)?) {}
}

/// Records the default source (or the one `PULSE_SOURCE` names) to a file, with AVAudioRecorder's names.
/// The file's type follows `url`'s extension (wav, aif, caf, flac, ogg, opus, mp3, …). Every member may be
/// used from any thread.
open class AVAudioRecorder: NSObject {
    // Not Sendable, as Apple's is not (a subclass need not restate a conformance); its members are
    // thread-safe all the same: `recorder` is Sendable and fixed; the delegate is behind `state`'s lock.
    private let recorder: Recorder
    private let state = Locked(State())

    private struct State {
        weak var delegate: (any AVAudioRecorderDelegate)?
    }

    /// The file recorded to.
    public let url: URL
    /// The settings as given.
    public let settings: [String: Any]
    /// The format recorded.
    public let format: AVAudioFormat

    /// A recorder of `url` with `settings` (AVFormatIDKey: linear PCM, FLAC, Opus or MPEG layer 3, as
    /// the extension's type takes; AVSampleRateKey, AVNumberOfChannelsKey, AVLinearPCMBitDepthKey 16, 24 or
    /// 32, AVLinearPCMIsFloatKey, AVEncoderAudioQualityKey). Capture and metering begin now; the file is
    /// made by `record()`. AAC and Apple Lossless cannot be encoded on Linux: it throws, saying so.
    public init(url: URL, settings: [String: Any]) throws {
        guard url.isFileURL else { throw statusError(kAudioFileUnspecifiedError, notAFileURL(url, "record into")) }
        let reader = SettingsReader(settings: settings)
        let formatID = reader.formatID
        guard formatID != kAudioFormatMPEG4AAC, formatID != kAudioFormatAppleLossless else {
            throw statusError(kAudioFormatUnsupportedDataFormatError,
                "cannot record \(url.path): AAC and Apple Lossless cannot be encoded on Linux; "
                + "record linear PCM (.wav, .aif, .caf), FLAC (.flac), Opus (.opus) or MP3 (.mp3)")
        }
        // The format asked must be the one the file's type holds: FLAC into a .wav recorded PCM while
        // `format` said FLAC.
        let holds: [String: AudioFormatID] = ["flac": kAudioFormatFLAC, "opus": kAudioFormatOpus, "mp3": kAudioFormatMPEGLayer3,
                                              "wav": kAudioFormatLinearPCM, "wave": kAudioFormatLinearPCM, "aif": kAudioFormatLinearPCM,
                                              "aiff": kAudioFormatLinearPCM, "aifc": kAudioFormatLinearPCM, "caf": kAudioFormatLinearPCM,
                                              "w64": kAudioFormatLinearPCM, "rf64": kAudioFormatLinearPCM, "au": kAudioFormatLinearPCM]
        if settings[AVFormatIDKey] != nil, let held = holds[url.pathExtension.lowercased()], held != formatID {
            throw statusError(kAudioFormatUnsupportedDataFormatError,
                "cannot record \(url.path) as \(Self.formatName(formatID)): a .\(url.pathExtension) file holds \(Self.formatName(held)); "
                + "name the file for its format (.flac, .opus, .mp3, or .wav, .aif, .caf for linear PCM)")
        }
        let rate = reader.number(AVSampleRateKey) ?? 44_100
        let channels = reader.number(AVNumberOfChannelsKey) ?? 1
        let float = reader.flag(AVLinearPCMIsFloatKey) ?? false
        let bits = reader.number(AVLinearPCMBitDepthKey) ?? (float ? 32 : 16)
        let sampleFormat: SampleFormat
        switch (float, bits) {
        case (true, 32): sampleFormat = .float32
        case (false, 16): sampleFormat = .int16
        case (false, 24): sampleFormat = .int24
        case (false, 32): sampleFormat = .int32
        default:
            throw statusError(kAudioFormatUnsupportedDataFormatError,
                "cannot record \(url.path) in \(bits)-bit \(float ? "float" : "integer") samples: use 16, 24 or 32 bits, or 32-bit float")
        }
        guard rate.isFinite, rate == rate.rounded(), rate >= 1, rate <= Double(StreamFormat.maxSampleRate),
              channels.isFinite, channels >= 1, channels <= Double(StreamFormat.maxChannels) else {
            throw statusError(kAudioFormatUnsupportedDataFormatError,
                "cannot record \(url.path) at \(rate) Hz, \(channels) channels: use a whole rate of 1 to "
                + "\(StreamFormat.maxSampleRate) Hz and 1 to \(StreamFormat.maxChannels) channels")
        }
        let quality = reader.number(AVEncoderAudioQualityKey).map { min(1, max(0, $0 / Double(AVAudioQuality.max.rawValue))) }
        let recorderSettings = RecorderSettings(sampleRate: Int(rate), numberOfChannels: Int(channels),
                                                sampleFormat: sampleFormat, encoderQuality: quality)
        do {
            recorder = try Recorder(path: url.path, settings: recorderSettings)
        } catch {
            throw statusError(error.code == .invalidFormat ? kAudioFormatUnsupportedDataFormatError : kAudioQueueErr_InvalidDevice,
                              error.message)
        }
        self.url = url
        self.settings = settings
        var normalized = settings
        normalized[AVFormatIDKey] = formatID
        format = AVAudioFormat(settings: normalized.merging([AVSampleRateKey: rate, AVNumberOfChannelsKey: channels]) { $1 })
            ?? AVAudioFormat(standardFormatWithSampleRate: rate, channels: AVAudioChannelCount(channels))!
        super.init()
        watch()
    }

    deinit { recorder.stop() }

    /// A format ID as a message names it.
    private static func formatName(_ id: AudioFormatID) -> String {
        switch id {
        case kAudioFormatLinearPCM: "linear PCM"
        case kAudioFormatFLAC: "FLAC"
        case kAudioFormatOpus: "Opus"
        case kAudioFormatMPEGLayer3: "MP3"
        default: "format \(id)"
        }
    }

    /// Tells the delegate, on the main queue, of each recording's end and of failures.
    private func watch() {
        let events = recorder.events()
        let carried = WeakCarrier(self)
        Task.detached {
            for await event in events {
                guard let self = carried.object else { return }
                switch event {
                case .recordingFinished(let summary):
                    if let error = summary.error {
                        let failure = statusError(kAudioFileUnspecifiedError, error.message)
                        self.tellDelegate { delegate, recorder in delegate.audioRecorderEncodeErrorDidOccur(recorder, error: failure) }
                    }
                    let success = summary.error == nil
                    self.tellDelegate { delegate, recorder in delegate.audioRecorderDidFinishRecording(recorder, successfully: success) }
                default:
                    break
                }
            }
        }
    }

    private func tellDelegate(_ call: @escaping @Sendable (any AVAudioRecorderDelegate, AVAudioRecorder) -> Void) {
        let carried = WeakCarrier(self)
        DispatchQueue.main.async {
            guard let self = carried.object, let delegate = self.delegate else { return }
            call(delegate, self)
        }
    }

    /// Told when a recording ends or fails, on the main queue; held weakly.
    public weak var delegate: (any AVAudioRecorderDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    // MARK: Recording

    /// Checks that the file can be made (its folder exists and is writable); false if not.
    @discardableResult
    public func prepareToRecord() -> Bool { recorder.prepareToRecord() }

    /// Starts recording (replacing the file), or resumes after `pause()`; false if it cannot.
    @discardableResult
    public func record() -> Bool { recorder.record() }

    /// Records from the frame captured at `time` (in `deviceCurrentTime`'s seconds).
    @discardableResult
    public func record(atTime time: TimeInterval) -> Bool { recorder.record(atTime: time) }

    /// Records exactly `duration` seconds, then stops by itself (the delegate is told).
    @discardableResult
    public func record(forDuration duration: TimeInterval) -> Bool { recorder.record(forDuration: duration) }

    /// Records `duration` seconds from the frame captured at `time`.
    @discardableResult
    public func record(atTime time: TimeInterval, forDuration duration: TimeInterval) -> Bool {
        recorder.record(atTime: time, forDuration: duration)
    }

    /// Pauses the recording; `record()` resumes it in the same file.
    public func pause() { _ = recorder.pause() }

    /// Ends the recording and closes the file (every frame captured is in it); the delegate is told.
    public func stop() { _ = try? recorder.stopRecording() }

    /// Removes the file; false while recording or if it cannot be removed.
    @discardableResult
    public func deleteRecording() -> Bool { recorder.deleteRecording() }

    /// Whether it is recording (false while paused, as Apple's).
    public var isRecording: Bool { recorder.isRecording }

    /// Seconds recorded so far in this recording, pauses left out.
    public var currentTime: TimeInterval { recorder.currentTime }

    /// The clock `record(atTime:)` takes: CLOCK_MONOTONIC, in seconds.
    public var deviceCurrentTime: TimeInterval { recorder.deviceCurrentTime }

    // MARK: Metering

    /// Whether the meters run (off by default).
    public var isMeteringEnabled: Bool {
        get { recorder.isMeteringEnabled }
        set { recorder.isMeteringEnabled = newValue }
    }

    /// Takes the meters' current values.
    public func updateMeters() { recorder.updateMeters() }

    /// The peak of `channel` as of `updateMeters()`, dBFS (−160 for silence, or while metering is off).
    public func peakPower(forChannel channel: Int) -> Float { recorder.peakPower(forChannel: channel) }

    /// The average (RMS) of `channel` as of `updateMeters()`, dBFS.
    public func averagePower(forChannel channel: Int) -> Float { recorder.averagePower(forChannel: channel) }
}
