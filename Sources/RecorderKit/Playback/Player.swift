// The playback face of RecorderKit: AVAudioPlayer's names over an AudioQueue-style output queue.
import Glibc
import Locking

/// Plays a sound file (or what an output callback produces) to a PulseAudio (or pipewire-pulse) sink,
/// with the recorder's meters, the way AVAudioPlayer and AudioQueueNewOutput do.
///
/// Underneath is the recorder's machinery in the other direction: a reader thread decodes the file
/// (libsndfile) into `bufferCount` rotating buffers of `bufferDuration` (3 × 100 ms by default);
/// libpulse's write callback copies filled buffers into the stream and frees them; the reader keeps a
/// copy of each until the server's clock says its first frame is being heard, and only then
/// publishes its meter reading, so a needle moves as the sound it measures starts, not ahead of it.
///
/// Audio is sent as signed 16-bit big-endian at the file's rate and channel count (the server
/// resamples and remixes for the sink; a mono file goes to a sink of two or more channels as two
/// identical ones, so that `pan` places it); files of more bits are rounded to 16 bits, and NaN or infinite
/// samples play as silence. Volume and pan are applied by the server at once; the meters read the
/// signal sent, before volume and pan (as AVAudioPlayer's, which apps read with the volume at 0).
///
/// ## Threads
/// Every method may be called from any thread, a `levelReadings()`/`events()` consumer or a `deinit`
/// included. Control calls (`prepareToPlay`, `play`, `pause`, `stop`, setting `currentTime`) are
/// requests carried out by the reader thread between buffers; the caller waits until it is done (the
/// `async` variants suspend instead). Made from the output callback (which runs on the reader
/// thread) they return at once and are carried out when the callback returns.
public final class Player: AudioMetering, Sendable {

    /// The format of what is played: the file's rate and channel count, signed 16-bit big-endian (a mono file
    /// goes to a sink of two or more channels as two identical ones: see `pan`).
    public let format: StreamFormat
    /// The file played, or nil for a sound in memory or an output callback.
    public let path: String?
    /// True for a file or a sound in memory (which seek, loop and stretch), false for an output callback.
    private let playsFile: Bool
    /// The file's length in seconds: 0 for an output callback, for a file that does not say how long it
    /// is (a FLAC stream written to a pipe), which plays to its end but seeks only to 0, and for standard
    /// input from a pipe, whose header's length is not to be trusted (ffmpeg and `recorder record -`
    /// write placeholders there). What was played is `heardFrameCount`.
    public let duration: Double
    /// Whether the source can be positioned: false for standard input from a pipe and for an output
    /// callback, which play once from their start (`numberOfLoops` and seeking have nothing to go back to).
    public let isSeekable: Bool
    /// The sink played to (the server's default resolved to its name).
    public let deviceName: String
    /// The server connected to, as libpulse names it.
    public let serverName: String
    /// The container and encoding of the file as libsndfile names them ("" for an output callback).
    public let fileFormatDescription: String
    /// Frames in each buffer (4 410 for 100 ms at 44.1 kHz).
    public let bufferFrameCapacity: Int
    /// How many buffers rotate.
    public let bufferCount: Int

    /// Channels in the file (AVAudioPlayer's `numberOfChannels`).
    public var numberOfChannels: Int { format.channelCount }

    /// The meters (see `AudioMetering`), fed by the reader thread with each buffer as it begins to be heard.
    public let metering: Metering

    private let feeder: PlaybackFeeder
    private let lifecycle = Locked(false)

    /// Opens `path` (any file libsndfile reads: WAV, AIFF, CAF, FLAC, Ogg Vorbis/Opus, MP3…), connects
    /// to the server and checks the sink. Nothing plays until `play()`.
    ///
    /// - Parameters:
    ///   - device: a sink name (see `Player.sinks()`), or nil for the one `PULSE_SINK` names (as for any
    ///     libpulse program), else the server's default sink.
    ///   - server: a server address, or nil for libpulse's usual lookup (which honours `PULSE_SERVER`).
    ///   - path: the file to play; "-" reads standard input (from a pipe: AU, WAV or Ogg, which
    ///     libsndfile decodes there; any type from a redirected file).
    ///   - bufferCount: rotating buffers, 2…64.
    ///   - bufferDuration: each buffer's length in seconds, 0.01…2.
    ///   - clientName: the application name the server shows for the stream (`pactl list sink-inputs`).
    /// - Throws: `.cannotReadFile` (missing, unreadable, not a sound file), `.invalidFormat` (a rate or
    ///   channel count PulseAudio streams cannot carry), `.serverUnreachable`, `.sinkNotFound`.
    public convenience init(contentsOf path: String, device: String? = nil, server: String? = nil,
                            bufferCount: Int = 3, bufferDuration: Double = 0.1,
                            clientName: String = "recorder") throws(RecorderError) {
        let reader = try SoundFileReader(path: path)
        let format: StreamFormat
        do {
            format = try StreamFormat(sampleRate: reader.sampleRate, channelCount: reader.channelCount)
        } catch {
            reader.close()
            throw RecorderError(.invalidFormat,
                "cannot play '\(path)': \(reader.channelCount) channels at \(reader.sampleRate) Hz; PulseAudio streams carry "
                + "1 to \(StreamFormat.maxChannels) channels at 1 to \(StreamFormat.maxSampleRate) Hz (convert it, e.g. with sox)")
        }
        try self.init(format: format, source: .file(reader), path: path,
                      fileFrames: reader.isSeekable ? reader.frameCount : 0, seekable: reader.isSeekable,
                      description: reader.formatDescription, device: device, server: server,
                      bufferCount: bufferCount, bufferDuration: bufferDuration, clientName: clientName)
    }

    /// A player of a sound held in memory (AVAudioPlayer's `init(data:)`): `bytes` are a whole file of any
    /// type libsndfile reads, played as that file would be (seekable, loops, rate and pitch); `path` is nil.
    /// Other parameters as `init(contentsOf:)`.
    /// - Throws: `.cannotReadFile` (not a sound file libsndfile reads), `.invalidFormat`,
    ///   `.serverUnreachable`, `.sinkNotFound`.
    public convenience init(bytes: [UInt8], device: String? = nil, server: String? = nil,
                            bufferCount: Int = 3, bufferDuration: Double = 0.1,
                            clientName: String = "recorder") throws(RecorderError) {
        let reader = try SoundFileReader(bytes: bytes, name: "the sound in memory")
        guard let format = try? StreamFormat(sampleRate: reader.sampleRate, channelCount: reader.channelCount) else {
            reader.close()
            throw RecorderError(.invalidFormat,
                "cannot play the sound in memory: \(reader.channelCount) channels at \(reader.sampleRate) Hz; PulseAudio "
                + "streams carry 1 to \(StreamFormat.maxChannels) channels at 1 to \(StreamFormat.maxSampleRate) Hz")
        }
        try self.init(format: format, source: .file(reader), path: nil, fileFrames: reader.frameCount,
                      seekable: reader.isSeekable, description: reader.formatDescription, device: device,
                      server: server, bufferCount: bufferCount, bufferDuration: bufferDuration, clientName: clientName)
    }

    /// A player whose audio comes from `output`, called on the reader thread to fill each buffer, as
    /// an AudioQueue output callback (tones, synthesis, a network stream). It receives the buffer
    /// zeroed, writes `frameCount` frames (all of `frameCapacity` unless it is done) and returns; a
    /// buffer with fewer frames is the last, and playback finishes once it has been heard.
    public convenience init(format: StreamFormat, device: String? = nil, server: String? = nil,
                            bufferCount: Int = 3, bufferDuration: Double = 0.1,
                            clientName: String = "recorder",
                            output: @escaping @Sendable (inout OutputBuffer) -> Void) throws(RecorderError) {
        try self.init(format: format, source: .callback(output), path: nil, fileFrames: 0, seekable: false, description: "",
                      device: device, server: server, bufferCount: bufferCount, bufferDuration: bufferDuration,
                      clientName: clientName)
    }

    private init(format: StreamFormat, source: PlaybackSource, path: String?, fileFrames: Int64, seekable: Bool, description: String,
                 device: String?, server: String?, bufferCount: Int, bufferDuration: Double,
                 clientName: String) throws(RecorderError) {
        func closeSource() { if case .file(let reader) = source { reader.close() } }
        guard (2...64).contains(bufferCount) else {
            closeSource()
            throw RecorderError(.invalidFormat, "invalid buffer count \(bufferCount): use 2 to 64 buffers")
        }
        guard let bufferFrames = Recorder.bufferFrames(bufferDuration, format: format) else {
            closeSource()
            throw RecorderError(.invalidFormat,
                "invalid buffer duration \(bufferDuration) s: use 0.01 to 2 seconds (0.1 s is the design default)")
        }
        self.format = format
        self.path = path
        if case .file = source { playsFile = true } else { playsFile = false }
        duration = Double(fileFrames) / Double(format.sampleRate)
        isSeekable = seekable
        fileFormatDescription = description
        self.bufferCount = bufferCount
        bufferFrameCapacity = bufferFrames
        let pool = BufferPool(count: bufferCount, capacityBytes: bufferFrameCapacity * format.bytesPerFrame)
        let dataReady = Semaphore()
        let stream: PlaybackStream
        do {
            stream = try PlaybackStream(format: format, sink: device, server: server, clientName: clientName,
                                        fragmentBytes: pool.capacityBytes, pool: pool, dataReady: dataReady)
        } catch {
            closeSource()
            throw error
        }
        deviceName = stream.sinkName
        serverName = stream.connection.serverName
        feeder = PlaybackFeeder(format: format, source: source, pool: pool, stream: stream, wake: dataReady,
                                fileFrames: fileFrames)
        metering = Metering(readout: feeder.readout)
        try feeder.start()
    }

    deinit { close() }

    // MARK: Playing

    /// Opens the stream and fills it, so `play()` starts at once (AVAudioPlayer's `prepareToPlay`).
    /// - Throws: the stream's failure (`.serverUnreachable`, `.streamFailed`).
    public func prepareToPlay() throws(RecorderError) { try feeder.worker.perform(.prepare, on: feeder) }

    /// Starts, or resumes after `pause()`, from `currentTime`.
    /// - Throws: the stream's failure, or `.invalidState` after `close()`.
    public func play() throws(RecorderError) {
        try checkOpen()
        try feeder.worker.perform(.play(at: nil, frames: nil), on: feeder)
    }

    /// `play()` for Swift concurrency.
    public func play() async throws(RecorderError) {
        try checkOpen()
        try await feeder.worker.perform(.play(at: nil, frames: nil))
    }

    /// Plays exactly `seconds` (rounded to whole frames; across loops) from `currentTime`, then
    /// finishes as at the end of the file.
    public func play(forDuration seconds: Double) throws(RecorderError) {
        try checkOpen()
        guard let frames = format.frames(seconds: seconds) else {
            throw RecorderError(.invalidFormat, "invalid duration \(seconds) s: use 0 to \(Int64(format.maxSeconds)) seconds")
        }
        try feeder.worker.perform(.play(at: nil, frames: frames), on: feeder)
    }

    /// Starts so that the frame at `currentTime` is heard at `time`, in `deviceCurrentTime`'s seconds
    /// (CLOCK_MONOTONIC): the server's latency is asked and silence of the time to go, less it, is
    /// played first. A time already past starts at once.
    public func play(atTime time: Double) throws(RecorderError) {
        try checkOpen()
        guard time.isFinite, time >= 0, time < 1e9 else {
            throw RecorderError(.invalidFormat,
                "invalid start time \(time) s: use a time in deviceCurrentTime's seconds (now: \(deviceCurrentTime))")
        }
        try feeder.worker.perform(.play(at: Int64(time * 1e9), frames: nil), on: feeder)
    }

    /// `play(atTime:)` for Swift concurrency.
    public func play(atTime time: Double) async throws(RecorderError) {
        try checkOpen()
        guard time.isFinite, time >= 0, time < 1e9 else {
            throw RecorderError(.invalidFormat,
                "invalid start time \(time) s: use a time in deviceCurrentTime's seconds (now: \(deviceCurrentTime))")
        }
        try await feeder.worker.perform(.play(at: Int64(time * 1e9), frames: nil))
    }

    /// Pauses where it is; `play()` resumes at the next frame. Meter readings stop while paused.
    public func pause() { try? feeder.worker.perform(.pause, on: feeder) }

    /// Stops playback (AVAudioPlayer's `stop`): what is queued is dropped, `currentTime` stays where it
    /// was heard and `play()` goes on from there. The finished event is not sent. Use `close()` to end
    /// the player.
    public func stop() { try? feeder.worker.perform(.stop, on: feeder) }

    /// `stop()` for Swift concurrency.
    public func stop() async { try? await feeder.worker.perform(.stop) }

    /// True while playing (not paused, stopped or finished).
    public var isPlaying: Bool { feeder.control.withLock { $0.isPlaying } }

    /// The position being heard, in seconds from the file's start. Setting it moves there, to the
    /// frame (rounded to the nearest), clamped to 0…`duration`; a NaN is ignored. While playing,
    /// playback goes on from there at once.
    public var currentTime: Double {
        get { Double(feeder.currentFrame) / Double(format.sampleRate) }
        set { try? seek(to: newValue) }
    }

    /// The frame being heard now (of the file, or of what the output callback produced), from the
    /// stream's interpolated clock: `currentTime` in frames.
    var currentFrame: Int64 { feeder.currentFrame }

    /// Moves to `seconds` (clamped to 0…`duration`); as setting `currentTime`, but says why it could not.
    /// - Throws: `.invalidFormat` for a NaN, `.invalidState` for an output callback (it cannot seek) or
    ///   after `close()`, `.readFailed` if the file cannot be positioned (standard input from a pipe).
    public func seek(to seconds: Double) throws(RecorderError) {
        try checkOpen()
        guard !seconds.isNaN else { throw RecorderError(.invalidFormat, "invalid position nan: use 0 to \(duration) seconds") }
        guard playsFile else {
            throw RecorderError(.invalidState, "an output callback's player cannot seek: its callback decides what plays")
        }
        let clamped = min(max(0, seconds), duration)
        let frame = min(Int64((clamped * Double(format.sampleRate)).rounded()), Int64(duration * Double(format.sampleRate)))
        try feeder.worker.perform(.seek(frame), on: feeder)
    }

    /// The device clock for `play(atTime:)`: CLOCK_MONOTONIC, in seconds.
    public var deviceCurrentTime: Double { Double(monotonicNanoseconds()) / 1e9 }

    /// Linear gain 0…1, applied by the server at once; values outside are clamped, a NaN ignored.
    public var volume: Float {
        get { feeder.control.withLock { $0.volume } }
        set {
            guard !newValue.isNaN else { return }
            feeder.worker.submit(.volume) { $0.volume = min(1, max(0, newValue)) }
        }
    }

    /// −1 (left) … 0 (centre) … +1 (right), a balance: the far side falls linearly to silence, the near
    /// one keeps its level (at 0 both are at full level). A mono file played to a sink of two or more
    /// channels is sent as two identical channels, so it is panned as AVAudioPlayer pans one (Apple
    /// documents no law; this is the one used); to a mono sink there is nothing to pan. Clamped; a NaN
    /// is ignored.
    public var pan: Float {
        get { feeder.control.withLock { $0.pan } }
        set {
            guard !newValue.isNaN else { return }
            feeder.worker.submit(.volume) { $0.pan = min(1, max(-1, newValue)) }
        }
    }

    /// The speed, without changing the pitch: 2 plays twice as fast, 0.5 half as fast (SoundTouch's
    /// time-stretch, as AVAudioUnitTimePitch's `rate`). 1/32 to 32; values outside are clamped, a NaN
    /// or an infinity ignored. Takes effect from the next buffer decoded (what the stream already holds,
    /// a few tenths of a second, plays as it was); `currentTime`, `duration` and the readings' frames stay
    /// in the file's time (for an output callback, in the frames it produced), and the meters measure what
    /// is heard. An output callback is stretched when its format is 16-bit (as AudioQueue's time-pitch
    /// takes its buffers); one of other samples, or a player of more than 16 channels, plays at its own
    /// speed: `rate` stays 1. Any thread.
    public var rate: Double {
        get { feeder.control.withLock { $0.rate } }
        set {
            guard newValue.isFinite, canStretch else { return }
            feeder.worker.submit(.timePitch) {
                $0.rate = min(max(newValue, TimeStretcher.rates.lowerBound), TimeStretcher.rates.upperBound)
            }
        }
    }

    /// The pitch shift in cents, without changing the speed: 1200 an octave up, −1200 an octave down
    /// (AVAudioUnitTimePitch's `pitch`). −2400 to 2400; clamped, a NaN or an infinity ignored; as `rate`
    /// for when it applies and for which players.
    public var pitch: Double {
        get { feeder.control.withLock { $0.pitch } }
        set {
            guard newValue.isFinite, canStretch else { return }
            feeder.worker.submit(.timePitch) {
                $0.pitch = min(max(newValue, TimeStretcher.pitches.lowerBound), TimeStretcher.pitches.upperBound)
            }
        }
    }

    /// A player of a file, or of a 16-bit output callback, whose channels SoundTouch can process.
    private var canStretch: Bool {
        (playsFile || format.sampleFormat == .int16) && TimeStretcher.channelCounts.contains(format.channelCount)
    }

    /// How many times to play the file again after the first (AVAudioPlayer's): 0 plays it once, 2
    /// three times back to back (frame-exact), any negative number forever. A source that cannot seek
    /// (`isSeekable` false) plays once whatever this says.
    public var numberOfLoops: Int {
        get { feeder.control.withLock { $0.numberOfLoops } }
        set { feeder.control.withLock { $0.numberOfLoops = newValue } }
    }

    /// Frames of the source played so far, over loops, seeks and stops: what the server has played
    /// (a timed start's silence not counted), so after the finished event, or `close()`, exactly what
    /// was heard. Divide by `format.sampleRate` for seconds.
    public var heardFrameCount: Int64 { feeder.control.withLock { $0.heardFrames } }

    /// Underruns so far: times the server ran out of audio while playing (heard as a gap).
    public var underrunCount: Int { feeder.underruns.load(ordering: .relaxed) }

    /// Finished playing, underruns, decode errors and failures, until `close()`.
    public func events() -> AsyncStream<PlayerEvent> { feeder.events.makeStream() }

    // MARK: Lifecycle

    /// Ends the player: stops, closes the stream and the connection, finishes the streams. Idempotent;
    /// also called on deinit. From the output callback it returns at once and the player ends when the
    /// callback returns.
    public func close() {
        guard markClosed() else { return }
        feeder.worker.submit(.shutdown)
        guard !feeder.worker.isCurrentThread else { return }
        feeder.control.wait { $0.exited }
    }

    /// `close()` for Swift concurrency.
    public func close() async {
        guard markClosed() else { return }
        feeder.worker.submit(.shutdown)
        await feeder.control.wait { $0.exited }
    }

    private func markClosed() -> Bool {
        lifecycle.withLock { closed in
            defer { closed = true }
            return !closed
        }
    }

    private func checkOpen() throws(RecorderError) {
        if lifecycle.withLock({ $0 }) {
            throw RecorderError(.invalidState, "the player was closed; create a new Player")
        }
    }

    /// The playback sinks of a server (nil: libpulse's usual lookup).
    public static func sinks(server: String? = nil) throws(RecorderError) -> [SinkInfo] {
        let connection = try PulseConnection(server: server, clientName: "recorder")
        defer { connection.close() }
        return connection.sinks()
    }
}
