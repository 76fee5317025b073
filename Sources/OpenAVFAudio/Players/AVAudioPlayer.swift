// AVAudioPlayer: a sound file or bytes played with Apple's names, over RecorderKit's Player; its delegate
// is told on the main queue when a sound finishes or cannot be decoded.
import Foundation
import Locking
import RecorderKit

/// What an AVAudioPlayer tells its delegate, on the main queue. Not isolated to the main actor, as in
/// every SDK before Apple's 27 (the code people port): a class adopting it is made and used from any
/// code; one that is `@MainActor` marks its methods `nonisolated` or its conformance `@preconcurrency`.
/// Both methods have empty defaults (on
/// Apple's systems they are optional).
public protocol AVAudioPlayerDelegate: NSObjectProtocol {
    /// The sound played to its end (`flag` false if it could not be decoded to the end); not after `stop()`.
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool)
    /// The file could not be decoded part-way.
    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?)
}

extension AVAudioPlayerDelegate {
    public func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {}
    public func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {}
}

/// Plays a sound from a file or from memory (any type libsndfile reads) on the default sink (or the one
/// `PULSE_SINK` names), with AVAudioPlayer's names. Every member may be used from any thread.
open class AVAudioPlayer: NSObject {
    // Not Sendable, as Apple's is not (a subclass need not restate a conformance); its members are
    // thread-safe all the same: `player` is Sendable and fixed; the rest is behind `state`'s lock.
    private let player: Player
    private let state = Locked(State())

    private struct State {
        weak var delegate: (any AVAudioPlayerDelegate)?
        var enableRate = false
        var rate: Float = 1
        var fade: Task<Void, Never>?
    }

    /// The file played (nil for a sound in memory).
    public let url: URL?
    /// The bytes played (nil for a file).
    public let data: Data?
    /// The format of the audio in the file or bytes.
    public let format: AVAudioFormat

    /// A player of the file at `url`. Throws an NSError (NSOSStatusErrorDomain) whose description says what
    /// failed: the file unreadable or no sound file, no server, no sink. A designated initializer, as Apple's,
    /// so a subclass can call `super.init(contentsOf:)`.
    public init(contentsOf url: URL) throws {
        (player, self.url, data, format) = try Self.open(url)
        super.init()
        watch()
    }

    /// As `init(contentsOf:)`; the type hint is not needed (libsndfile reads the file's header).
    public init(contentsOf url: URL, fileTypeHint utiString: String?) throws {
        (player, self.url, data, format) = try Self.open(url)
        super.init()
        watch()
    }

    /// A player of a sound held in memory (a whole file's bytes, of any type libsndfile reads).
    public init(data: Data) throws {
        (player, url, self.data, format) = try Self.open(data)
        super.init()
        watch()
    }

    /// As `init(data:)`; the type hint is not needed.
    public init(data: Data, fileTypeHint utiString: String?) throws {
        (player, url, self.data, format) = try Self.open(data)
        super.init()
        watch()
    }

    private static func open(_ url: URL) throws -> (Player, URL?, Data?, AVAudioFormat) {
        guard url.isFileURL else { throw statusError(kAudioFileUnspecifiedError, notAFileURL(url, "play")) }
        do {
            let player = try Player(contentsOf: url.path, clientName: ProcessInfo.processInfo.processName)
            return (player, url, nil, format(of: player, url: url, data: nil))
        } catch {
            throw statusError(kAudioFileUnsupportedFileTypeError, error.message)
        }
    }

    private static func open(_ data: Data) throws -> (Player, URL?, Data?, AVAudioFormat) {
        do {
            let player = try Player(bytes: [UInt8](data), clientName: ProcessInfo.processInfo.processName)
            return (player, nil, data, format(of: player, url: nil, data: data))
        } catch {
            throw statusError(kAudioFileUnsupportedFileTypeError, error.message)
        }
    }

    deinit {
        state.withLock { $0.fade?.cancel() }
        player.close()
    }

    /// The file's own format, as Audio File Services reports it (linear PCM at the player's rate if it
    /// cannot be read that way).
    private static func format(of player: Player, url: URL?, data: Data?) -> AVAudioFormat {
        var described = AudioStreamBasicDescription()
        var file: AudioFileID?
        if let url, AudioFileOpenURL(url as CFURL, .readPermission, 0, &file) == noErr, let file {
            var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
            AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &size, &described)
            AudioFileClose(file)
        } else if let data {
            described = MemoryReader.dataFormat(of: data) ?? described
        }
        return AVAudioFormat(streamDescription: &described)
            ?? AVAudioFormat(standardFormatWithSampleRate: Double(player.format.sampleRate),
                             channels: AVAudioChannelCount(player.format.channelCount))!
    }

    /// Tells the delegate, on the main queue, what the player's events say.
    private func watch() {
        let events = player.events()
        let carried = WeakCarrier(self)
        Task.detached {
            for await event in events {
                guard let self = carried.object else { return }
                switch event {
                case .finishedPlaying(let successfully):
                    self.tellDelegate { delegate, player in delegate.audioPlayerDidFinishPlaying(player, successfully: successfully) }
                case .decodeError(let error, _):
                    let failure = statusError(kAudioFileInvalidFileError, error.message)
                    self.tellDelegate { delegate, player in delegate.audioPlayerDecodeErrorDidOccur(player, error: failure) }
                default:
                    break
                }
            }
        }
    }

    private func tellDelegate(_ call: @escaping @Sendable (any AVAudioPlayerDelegate, AVAudioPlayer) -> Void) {
        let carried = WeakCarrier(self)
        DispatchQueue.main.async {
            guard let self = carried.object, let delegate = self.delegate else { return }
            call(delegate, self)
        }
    }

    /// Told when a sound finishes or fails to decode, on the main queue; held weakly.
    public weak var delegate: (any AVAudioPlayerDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    // MARK: Playing

    /// Connects and fills the stream so that `play()` starts at once; false if it cannot.
    @discardableResult
    public func prepareToPlay() -> Bool { (try? player.prepareToPlay()) != nil }

    /// Plays (or resumes) from `currentTime`; false if it cannot.
    @discardableResult
    public func play() -> Bool { (try? player.play()) != nil }

    /// Plays so that `currentTime`'s frame is heard at `time`, in `deviceCurrentTime`'s seconds; no meter
    /// reading comes before it is heard.
    @discardableResult
    public func play(atTime time: TimeInterval) -> Bool { (try? player.play(atTime: time)) != nil }

    /// Pauses where it is; `play()` resumes.
    public func pause() { player.pause() }

    /// Stops: what is queued is dropped, `currentTime` stays where it was heard; the delegate is not told.
    public func stop() { player.stop() }

    /// Whether it is playing.
    public var isPlaying: Bool { player.isPlaying }

    // MARK: The sound

    /// The sound's length in seconds.
    public var duration: TimeInterval { player.duration }
    /// The sound's channels.
    public var numberOfChannels: Int { player.numberOfChannels }
    /// The sound's format as a settings dictionary (AVFormatIDKey, AVSampleRateKey, AVNumberOfChannelsKey…).
    public var settings: [String: Any] { format.settings }

    /// The position being heard, in seconds; setting it moves there (clamped to 0…`duration`).
    public var currentTime: TimeInterval {
        get { player.currentTime }
        set { player.currentTime = newValue }
    }

    /// The clock `play(atTime:)` takes: CLOCK_MONOTONIC, in seconds.
    public var deviceCurrentTime: TimeInterval { player.deviceCurrentTime }

    /// Plays the sound this many more times (negative: until stopped).
    public var numberOfLoops: Int {
        get { player.numberOfLoops }
        set { player.numberOfLoops = newValue }
    }

    // MARK: Volume, pan, rate

    /// Linear gain 0…1 (clamped; NaN ignored).
    public var volume: Float {
        get { player.volume }
        set {
            state.withLock { $0.fade?.cancel() }
            player.volume = newValue
        }
    }

    /// Moves the volume to `volume` over `duration` seconds, in 10 ms steps (at once for 0 or less, or a
    /// non-finite duration).
    public func setVolume(_ volume: Float, fadeDuration duration: TimeInterval) {
        guard !volume.isNaN else { return }
        let target = min(1, max(0, volume))
        guard duration.isFinite, duration > 0 else {
            self.volume = target
            return
        }
        let start = player.volume
        let player = self.player
        let duration = min(duration, 1e9)  // 31 years: a fade of 1e17 s trapped on its step's nanoseconds
        let steps = max(1, min(100_000, Int(duration / 0.01)))
        let fade = Task.detached {
            for step in 1...steps {
                try? await Task.sleep(nanoseconds: UInt64(duration / Double(steps) * 1e9))
                if Task.isCancelled { return }
                player.volume = start + (target - start) * Float(step) / Float(steps)
            }
        }
        state.withLock {
            $0.fade?.cancel()
            $0.fade = fade
        }
    }

    /// −1 (left) … 1 (right) (clamped; NaN ignored): the far side falls linearly, the near one keeps its
    /// level; a mono file is panned too (sent as two channels), as Apple's is. See `Player.pan`.
    public var pan: Float {
        get { player.pan }
        set { player.pan = newValue }
    }

    /// Whether `rate` may change the speed: set it before `prepareToPlay()`.
    public var enableRate: Bool {
        get { state.withLock { $0.enableRate } }
        set { state.withLock { $0.enableRate = newValue } }
    }

    /// The speed, 0.5…2 (clamped; NaN ignored), pitch kept; takes effect only with `enableRate`.
    public var rate: Float {
        get { state.withLock { $0.rate } }
        set {
            guard !newValue.isNaN else { return }
            let rate = min(2, max(0.5, newValue))
            if state.withLock({ state -> Bool in
                state.rate = rate
                return state.enableRate
            }) {
                player.rate = Double(rate)
            }
        }
    }

    // MARK: Metering

    /// Whether the meters run (off by default).
    public var isMeteringEnabled: Bool {
        get { player.isMeteringEnabled }
        set { player.isMeteringEnabled = newValue }
    }

    /// Takes the meters' current values for `peakPower(forChannel:)` and `averagePower(forChannel:)`.
    public func updateMeters() { player.updateMeters() }

    /// The peak of `channel` as of `updateMeters()`, dBFS (−160 for silence, or while metering is off).
    public func peakPower(forChannel channel: Int) -> Float { player.peakPower(forChannel: channel) }

    /// The average (RMS) of `channel` as of `updateMeters()`, dBFS.
    public func averagePower(forChannel channel: Int) -> Float { player.averagePower(forChannel: channel) }
}

/// The data format of a sound held in memory, read through Audio File Services' callbacks.
enum MemoryReader {
    final class Bytes {
        let data: Data
        init(_ data: Data) { self.data = data }
    }

    static func dataFormat(of data: Data) -> AudioStreamBasicDescription? {
        let bytes = Bytes(data)
        var file: AudioFileID?
        let status = withExtendedLifetime(bytes) { () -> OSStatus in
            AudioFileOpenWithCallbacks(Unmanaged.passUnretained(bytes).toOpaque(), { client, position, count, buffer, actual in
                let bytes = Unmanaged<Bytes>.fromOpaque(client).takeUnretainedValue().data
                guard position >= 0, position <= Int64(bytes.count) else {
                    actual.pointee = 0
                    return kAudioFilePositionError
                }
                let length = min(Int(count), bytes.count - Int(position))
                if length > 0 {
                    bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + Int(position), byteCount: length) }
                }
                actual.pointee = UInt32(length)
                return noErr
            }, nil, { client in Int64(Unmanaged<Bytes>.fromOpaque(client).takeUnretainedValue().data.count) }, nil, 0, &file)
        }
        guard status == noErr, let file else { return nil }
        defer { AudioFileClose(file) }
        var described = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        return withExtendedLifetime(bytes) {
            AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &size, &described) == noErr ? described : nil
        }
    }
}
