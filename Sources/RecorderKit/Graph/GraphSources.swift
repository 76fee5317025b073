// What a graph's players read: the source protocol, files (libsndfile), samples in memory, and any of
// them resampled to the graph's rate.

/// Frames a `GraphPlayer` reads, at random positions (in practice one after another): a file, samples in
/// memory, or the embedder's own (OpenAVFAudio's AVAudioFile).
///
/// Read only by the graph's render pass, one call at a time.
public protocol GraphFrameSource: AnyObject, Sendable {
    /// Frames per second.
    var sampleRate: Int { get }
    /// Channels per frame (1…16).
    var channelCount: Int { get }
    /// Frames it holds.
    var frameCount: Int64 { get }
    /// Reads up to `count` frames from `frame` into `buffer`'s channels from frame `offset` on (its
    /// capacity suffices); returns the frames read (0 at the end or on a failure).
    func read(from frame: Int64, count: Int, into buffer: GraphBuffer, at offset: Int) -> Int
}

/// A sound file (anything libsndfile reads) as a graph source; read as float frames.
public final class GraphFile: GraphFrameSource, @unchecked Sendable {
    // @unchecked Sendable: the reader and the scratch are used by one render pass at a time (the protocol's
    // contract); the other fields are immutable.
    private let reader: SoundFileReader
    private var scratch: [Float] = []
    private var position: Int64 = 0
    /// The file's rate.
    public let sampleRate: Int
    /// The file's channels.
    public let channelCount: Int
    /// The frames the file holds.
    public let frameCount: Int64
    /// The file's path.
    public let path: String

    /// Opens `path` for reading.
    /// - Throws: `.cannotReadFile` naming the path and libsndfile's reason; `.invalidFormat` for a file
    ///   that cannot be positioned (standard input from a pipe) or has more than 16 channels.
    public init(path: String) throws(RecorderError) {
        let reader = try SoundFileReader(path: path)
        guard reader.isSeekable, (1...16).contains(reader.channelCount) else {
            reader.close()
            throw RecorderError(.invalidFormat,
                "cannot schedule '\(path)': \(reader.channelCount) channels, \(reader.isSeekable ? "" : "not ")seekable; "
                + "a graph plays seekable files of 1 to 16 channels (convert it, e.g. with sox)")
        }
        self.reader = reader
        self.path = path
        sampleRate = reader.sampleRate
        channelCount = reader.channelCount
        frameCount = reader.frameCount
    }

    deinit { reader.close() }

    /// Reads as `GraphFrameSource` says (NaN or infinite samples read as 0).
    public func read(from frame: Int64, count: Int, into buffer: GraphBuffer, at offset: Int) -> Int {
        guard count > 0, frame >= 0, frame < frameCount else { return 0 }
        if frame != position {
            guard reader.seek(to: frame) else { return 0 }
            position = frame
        }
        let channels = channelCount
        if scratch.count < count * channels { scratch = [Float](repeating: 0, count: count * channels) }
        let read = scratch.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: count) }
        position += Int64(read)
        for channel in 0..<min(channels, buffer.channelCount) {
            let to = buffer.channel(channel)
            for index in 0..<read {
                let sample = scratch[index * channels + channel]
                to[offset + index] = sample.isFinite ? sample : 0
            }
        }
        return read
    }
}

/// Samples held in memory (a buffer scheduled on a player), one array per channel.
final class SampleSource: GraphFrameSource, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    let channels: [[Float]]
    let sampleRate: Int
    var channelCount: Int { channels.count }
    let frameCount: Int64

    init(channels: [[Float]], sampleRate: Int) {
        let length = channels.map(\.count).min() ?? 0
        self.channels = channels.isEmpty ? [[]] : channels
        self.sampleRate = sampleRate
        frameCount = Int64(length)
    }

    func read(from frame: Int64, count: Int, into buffer: GraphBuffer, at offset: Int) -> Int {
        guard frame >= 0, frame < frameCount else { return 0 }
        let start = Int(frame), got = min(count, Int(frameCount - frame))
        for channel in 0..<min(channels.count, buffer.channelCount) {
            let from = channels[channel], to = buffer.channel(channel)
            for index in 0..<got { to[offset + index] = from[start + index].isFinite ? from[start + index] : 0 }
        }
        return got
    }
}

/// Another source at `sampleRate` instead of its own: read one frame after another through a varispeed
/// `TimeStretcher` (SoundTouch's resampler) of the two rates' ratio. A read that does not follow the last
/// starts the resampler afresh there.
final class ResampledSource: GraphFrameSource, @unchecked Sendable {
    // @unchecked Sendable: used by one render pass at a time (the protocol's contract).
    let base: GraphFrameSource
    let sampleRate: Int
    var channelCount: Int { base.channelCount }
    let frameCount: Int64
    /// Base frames per frame out.
    let ratio: Double
    private let stretcher: TimeStretcher
    private let chunk: GraphBuffer
    private var interleaved: [Float] = []
    private var out: [Float] = []
    /// The frame out the next read continues from, and the base frame the resampler reads next.
    private var position: Int64 = -1
    private var baseNext: Int64 = 0

    /// `base` at `rate`; nil where the ratio is outside what the resampler takes (1/32…32) or the channels.
    init?(_ base: GraphFrameSource, rate: Int) {
        let ratio = Double(base.sampleRate) / Double(rate)
        guard rate > 0, TimeStretcher.rates.contains(ratio),
              let stretcher = TimeStretcher(channelCount: base.channelCount, sampleRate: base.sampleRate) else { return nil }
        stretcher.set(varispeed: ratio)
        self.base = base
        sampleRate = rate
        self.ratio = ratio
        self.stretcher = stretcher
        frameCount = Int64((Double(base.frameCount) / ratio).rounded(.down))
        chunk = GraphBuffer(channelCount: base.channelCount, frameCapacity: 1_024)
    }

    func read(from frame: Int64, count: Int, into buffer: GraphBuffer, at offset: Int) -> Int {
        guard count > 0, frame >= 0, frame < frameCount else { return 0 }
        if frame != position {
            stretcher.clear(at: 0)
            stretcher.set(varispeed: ratio)
            baseNext = Int64((Double(frame) * ratio).rounded())
            position = frame
        }
        let wanted = min(count, Int(frameCount - frame))
        let channels = channelCount
        if out.count < wanted * channels { out = [Float](repeating: 0, count: wanted * channels) }
        var got = 0
        while got < wanted {
            got += out.withUnsafeMutableBufferPointer { stretcher.receive(into: $0.baseAddress! + got * channels, maxFrames: wanted - got) }
            guard got < wanted else { break }
            if stretcher.isFlushed { break }
            chunk.prepare(channels: channels, frames: 1_024)
            let read = base.read(from: baseNext, count: 1_024, into: chunk, at: 0)
            if read == 0 {
                stretcher.flush()
                continue
            }
            baseNext += Int64(read)
            if interleaved.count < read * channels { interleaved = [Float](repeating: 0, count: read * channels) }
            for channel in 0..<channels {
                let from = chunk.channel(channel)
                for index in 0..<read { interleaved[index * channels + channel] = from[index] }
            }
            interleaved.withUnsafeBufferPointer { stretcher.put($0.baseAddress!, frames: read) }
        }
        // Past the end the resampler pads with silence; the frames counted stop at `frameCount`.
        for channel in 0..<min(channels, buffer.channelCount) {
            let to = buffer.channel(channel)
            for index in 0..<got { to[offset + index] = out[index * channels + channel] }
        }
        position += Int64(got)
        return got
    }
}
