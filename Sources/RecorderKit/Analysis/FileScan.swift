// A file decoded once for taps alone (peak data, a spectrogram), without the meters: what a plain
// min/max pass costs.
import Glibc

extension FileAnalysis {
    /// Decodes `path` once, in blocks of up to a second, and hands every block to `taps` (NaN and
    /// ±infinity replaced by the channel's sample before them); measures nothing. Returns the frames
    /// read. Call from any thread.
    /// - Throws: `.cannotReadFile` naming the path and libsndfile's reason.
    @discardableResult
    public static func scan(path: String, taps: [any AnalysisTap]) throws(RecorderError) -> Int64 {
        let file = try SoundFileReader(path: path)
        defer { file.close() }
        let channels = file.channelCount
        let blockFrames = max(1, min(max(file.sampleRate, 1), max(1_024, (1 << 20) / max(channels, 1))))
        var block = [Float](repeating: 0, count: blockFrames * channels)
        var lastFinite = [Float](repeating: 0, count: channels)
        var frames: Int64 = 0
        for tap in taps { tap.begin(sampleRate: file.sampleRate, channelCount: channels, frames: file.frameCount) }
        while true {
            let count = block.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: blockFrames) }
            guard count > 0 else { break }
            block.withUnsafeMutableBufferPointer { samples in
                for channel in 0..<channels {
                    _ = replaceNonFinite(in: samples, count: count, channels: channels, channel: channel, last: &lastFinite[channel])
                }
                for tap in taps { tap.add(interleaved: UnsafeBufferPointer(rebasing: samples[0..<(count * channels)])) }
            }
            frames += Int64(count)
        }
        for tap in taps { tap.end() }
        return frames
    }
}
