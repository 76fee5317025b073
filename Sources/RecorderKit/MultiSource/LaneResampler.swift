// libsoxr's variable-rate mode for one source: the adaptive resampler that keeps a drifting source on the take's clock.
import CSoxr

/// A source's frames resampled at a ratio that may change every call (libsoxr's `SOXR_VR` quality, the
/// mode sox and ffmpeg's `aresample=async` build on), as floats, interleaved. Buffers are allocated once.
///
/// soxr compensates its filter's delay but for `uncompensatedDelay` output frames, skipped here: so
/// output frame k stands for input position k × ratio from where feeding began. A resampler started
/// `primed` frames before the position it is to continue from also skips the outputs that stand for
/// those frames, and joins the source's audio without a jump.
final class LaneResampler {
    let channels: Int
    /// The largest ratio change asked for (input frames per output frame), either way.
    static let maximumDeviation = 0.005
    private let soxr: soxr_t
    private let input: UnsafeMutablePointer<Float>
    private let output: UnsafeMutablePointer<Float>
    let chunkFrames: Int
    /// Outputs still to skip (they stand for the priming frames, or are soxr's delay).
    private var skip: Int
    private let library: SoxrLibrary

    /// Output frames of delay soxr's variable-rate stage leaves: an impulse at input frame n came out
    /// 2.03 to 2.08 frames after n ÷ ratio, at +200 and −300 ppm, at 8 and 48 kHz, in chunks of 37 to 4 096
    /// frames, at HQ and VHQ (measured through libsoxr 0.1.3). Left in, a corrected source stood two
    /// frames late against the first: 0.25 ms at 8 kHz (the offset issue 40 left untraced).
    static let uncompensatedDelay = 2

    /// Loads libsoxr (once): a take that may correct drift calls it before it starts, so that a missing
    /// library is an error then, not a source left uncorrected.
    /// - Throws: `.invalidState` naming the library and what to install.
    static func loadLibrary() throws(RecorderError) {
        _ = try SoxrLibrary.shared()
    }

    /// Nil when libsoxr refuses (no memory) or cannot be loaded (`loadLibrary` said so before the take).
    init?(channels: Int, chunkFrames: Int, ratio: Double, primed: Int) {
        guard let library = try? SoxrLibrary.shared() else { return nil }
        var error: soxr_error_t?
        var io = library.ioSpec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = library.qualitySpec(UInt(SOXR_HQ), UInt(SOXR_VR))
        guard let made = library.create(1 + Self.maximumDeviation * 2, 1, UInt32(channels), &error, &io, &quality, nil),
              error == nil else { return nil }
        self.library = library
        soxr = made
        self.channels = channels
        self.chunkFrames = chunkFrames
        input = .allocate(capacity: chunkFrames * channels)
        output = .allocate(capacity: (chunkFrames * 2 + 1_024) * channels)
        skip = Int((Double(primed) / ratio).rounded()) + Self.uncompensatedDelay
        _ = library.setIORatio(soxr, ratio, 0)
    }

    deinit {
        library.delete(soxr)
        input.deallocate()
        output.deallocate()
    }

    /// Where to put up to `chunkFrames` frames for `process`.
    var inputBuffer: UnsafeMutablePointer<Float> { input }

    /// Resamples the `frames` frames placed in `inputBuffer` at `ratio` (input frames per output frame);
    /// returns the outputs (after any still to skip), valid until the next call. soxr keeps a few
    /// hundred frames inside, given out by later calls.
    func process(frames: Int, ratio: Double) -> UnsafeBufferPointer<Float> {
        _ = library.setIORatio(soxr, ratio, 0)
        var used = 0
        var produced = 0
        let room = chunkFrames * 2 + 1_024
        while used < frames && produced < room {
            var consumed = 0
            var done = 0
            _ = library.process(soxr, input + used * channels, frames - used, &consumed,
                                output + produced * channels, room - produced, &done)
            used += consumed
            produced += done
            if consumed == 0 && done == 0 { break }
        }
        let skipped = min(skip, produced)
        skip -= skipped
        return UnsafeBufferPointer(start: output + skipped * channels, count: (produced - skipped) * channels)
    }
}
