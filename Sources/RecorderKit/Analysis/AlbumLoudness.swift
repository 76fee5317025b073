// The loudness of several files played one after another, as an album's ReplayGain counts it.

extension FileAnalysis {
    /// The integrated loudness (LUFS; nil for silence) of the files at `paths` measured as one programme,
    /// one after another (EBU R128's gating over all of them), and their highest sample peak (linear,
    /// 1.0 full scale). The files must share a rate and a channel count. Any thread; it reads them all.
    /// - Throws: `.cannotReadFile` or `.readFailed` for a file that cannot be read; `.invalidFormat` for
    ///   files of different rates or channel counts, or ones libebur128 cannot measure.
    public static func albumLoudness(paths: [String]) throws(RecorderError) -> (integrated: Double?, samplePeak: Double) {
        var meter: LoudnessMeter?
        var format: (rate: Int, channels: Int)?
        var peak: Float = 0
        var block: [Float] = []
        for path in paths {
            let reader = try SoundFileReader(path: path)
            defer { reader.close() }
            if let format, format != (reader.sampleRate, reader.channelCount) {
                throw RecorderError(.invalidFormat,
                    "cannot measure '\(path)' with the album: it has \(reader.channelCount) channels at \(reader.sampleRate) Hz, "
                    + "the files before it \(format.channels) at \(format.rate) Hz; tag it on its own")
            }
            if meter == nil {
                meter = try LoudnessMeter(channelCount: reader.channelCount, sampleRate: reader.sampleRate, truePeak: false,
                                          histogram: true)
                meter?.weigh(ChannelWeight.of(channelCount: reader.channelCount, map: reader.channelMap))
                format = (reader.sampleRate, reader.channelCount)
                block = [Float](repeating: 0, count: reader.sampleRate * reader.channelCount)
            }
            // NaN and ±infinity are left out of the peak and replaced, for the meter, by the channel's
            // sample before them, as a file's own analysis does: one non-finite sample fed to libebur128
            // would make every block after it (in every later file too) unmeasurable.
            var lastFinite = [Float](repeating: 0, count: reader.channelCount)
            while true {
                let frames = block.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: reader.sampleRate) }
                guard frames > 0 else { break }
                let samples = frames * reader.channelCount
                for index in 0..<samples where block[index].isFinite { peak = max(peak, abs(block[index])) }
                block.withUnsafeMutableBufferPointer { buffer in
                    for channel in 0..<reader.channelCount {
                        _ = replaceNonFinite(in: buffer, count: frames, channels: reader.channelCount, channel: channel,
                                             last: &lastFinite[channel])
                    }
                }
                block.withUnsafeBufferPointer { meter?.add(interleaved: UnsafeBufferPointer(rebasing: $0[0..<samples])) }
            }
            if let error = reader.readError { throw error }
        }
        return (meter?.integrated, Double(peak))
    }
}
