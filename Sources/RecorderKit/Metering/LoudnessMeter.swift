// EBU R128 / ITU-R BS.1770 loudness and true peak through libebur128, live or over a file.
import CEbur128
import CSndFile
import Glibc
import Locking

/// Held around `ebur128_init`, which also (re)writes libebur128's global constants: two states made at
/// once on two threads would race on them.
let libebur128Lock = PosixMutex()

/// A channel's weight in BS.1770 loudness: 1.0 for front and centre channels (and any channel whose
/// place is not known), 1.41 (+1.5 dB) for the surround, side and rear ones, none for LFE.
enum ChannelWeight: Sendable, Hashable {
    case full, surround, excluded

    /// The weights of a file's channels, as ffmpeg's ebur128 filter weighs them: from the positions the
    /// file states (libsndfile's `SF_CHANNEL_MAP_*`); without them, for 3 to 8 channels the order WAV,
    /// FLAC and Vorbis define (3: L R C; 4: L R Ls Rs; 5: L R C Ls Rs; 6: 5.1; 7: 6.1; 8: 7.1, LFE fourth),
    /// and every channel at 1.0 otherwise (mono and stereo included, which have no surround or LFE).
    static func of(channelCount: Int, map: [Int32]?) -> [ChannelWeight] {
        if let map, map.count == channelCount {
            return map.map { position in
                switch Int(position) {
                case SF_CHANNEL_MAP_LFE: .excluded
                case SF_CHANNEL_MAP_REAR_LEFT, SF_CHANNEL_MAP_REAR_RIGHT,
                     SF_CHANNEL_MAP_REAR_CENTER, SF_CHANNEL_MAP_SIDE_LEFT,
                     SF_CHANNEL_MAP_SIDE_RIGHT, SF_CHANNEL_MAP_TOP_REAR_LEFT,
                     SF_CHANNEL_MAP_TOP_REAR_RIGHT, SF_CHANNEL_MAP_TOP_REAR_CENTER: .surround
                default: .full
                }
            }
        }
        let (f, s, x) = (ChannelWeight.full, ChannelWeight.surround, ChannelWeight.excluded)
        switch channelCount {
        case 3: return [f, f, f]
        case 4: return [f, f, s, s]
        case 5: return [f, f, f, s, s]
        case 6: return [f, f, f, x, s, s]
        case 7: return [f, f, f, x, s, s, s]
        case 8: return [f, f, f, x, s, s, s, s]
        default: return [ChannelWeight](repeating: f, count: max(0, channelCount))
        }
    }
}

/// Loudness as EBU R128 defines it, computed by libebur128 (K-weighting, gating and true-peak
/// oversampling are libebur128's, not re-derived here):
/// - momentary: mean-square loudness of the last 400 ms, in LUFS;
/// - short-term: of the last 3 s, in LUFS;
/// - integrated: of everything so far, gated at −70 LUFS and then 10 LU under the ungated level;
/// - loudness range (EBU Tech 3342): 95th minus 10th percentile of the short-term values, gated at
///   −70 LUFS and 20 LU under, in LU;
/// - true peak per channel: the peak of the signal oversampled 4× (2× above 96 kHz), in dBTP.
///
/// Channels follow libebur128's default order (left, right, centre, LFE, left surround, right surround;
/// channels 7 on left out) unless `weigh` sets them (`ChannelWeight`: a file's analysis weighs its channels by the
/// positions the file states, a live meter by a stream's usual order); a mono signal counts once, so a full-scale 997 Hz sine in it reads −3.01 LUFS. Feed it from one thread.
/// `maxMomentary` and `maxShortTerm` are sampled every 100 ms of audio, as ffmpeg's ebur128 filter does.
public final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?
    /// Channels of the interleaved frames fed to it.
    public let channelCount: Int
    /// Frames per second.
    public let sampleRate: Int
    /// Frames in one 100 ms step (the momentary/short-term sampling interval).
    private let step: Int
    /// Frames fed since the last 100 ms step ended.
    private var intoStep = 0
    /// The highest momentary loudness so far (LUFS), sampled every 100 ms; nil before any.
    public private(set) var maxMomentary: Double?
    /// The highest short-term loudness so far (LUFS), sampled every 100 ms; nil before any.
    public private(set) var maxShortTerm: Double?
    /// Mean-square energies of the last 30 100 ms steps (zero before the first), newest at `ringIndex - 1`:
    /// the momentary and short-term windows are their last 4 and 30. Asking libebur128 for the 3 s
    /// window at every step would sum 3 s of samples ten times a second: most of an analysis's time.
    private var stepEnergies = [Double](repeating: 0, count: 30)
    private var ringIndex = 0
    /// Called at the end of every 100 ms step with the momentary and short-term loudness of the windows
    /// ending there (nil: silence); a file's analysis keeps them as its loudness series. In the first
    /// 3 s the windows hold the steps there are and silence before them, as ffmpeg's ebur128 filter reads.
    var onStep: ((_ momentary: Double?, _ shortTerm: Double?) -> Void)?
    /// Without histograms, and when 100 ms is a whole number of frames (libebur128's step, rounded, is
    /// then the meter's): the gating blocks and short-term blocks, made here from the step energies
    /// (`GatedBlocks`), and libebur128 only K-weights (modes M and S). Nil: libebur128 gates.
    private var gatedBlocks: GatedBlocks?
    /// Floats for `add(bigEndianS16:)`, sized once per largest block seen.
    private var scratch: [Float] = []

    /// Frames at the start whose oversampled values are left out of the true peak (their samples still
    /// count): the interpolator spans 13 input frames, so this covers its start from silence.
    static let startTransientFrames = 16
    /// Frames still to feed before the oversampled values count (see `ignoringStartTransient`).
    private var transientLeft: Int
    /// Per channel, the sample and true peaks (`TruePeakScanner`: libebur128's interpolator design,
    /// vectorised); empty when true peak is not measured.
    private var scanners: [TruePeakScanner]

    /// `truePeak` false leaves out the oversampling (most of the cost) when true peak is measured
    /// elsewhere; `truePeak(channel:)` is then nil.
    ///
    /// `ignoringStartTransient`: for a meter that starts listening in the middle of a signal (a live
    /// meter). The oversampler starts from silence, so a stream that begins mid-waveform looks like a step
    /// to it, and its reconstruction of the step rings up to ~1 dB over the signal's peak: a peak of the
    /// moment the meter started, not of the signal. Then the first 16 frames count by their samples only.
    /// A file, which does begin where it begins, is measured without this (as libebur128 and ffmpeg do).
    ///
    /// `histogram`: constant memory, for a meter that may run for days (a live one). libebur128 then
    /// keeps the gated blocks' loudness in histograms of 0.1 dB bins instead of keeping every block (about
    /// 1 MB an hour, and an integrated or LRA query walks them all); integrated loudness and LRA come from
    /// the histograms, as ffmpeg's ebur128 filter computes them (measured against block mode: see
    /// docs/behaviour.md). Without it, exact block values, for a file of known length: kept by the meter
    /// (`GatedBlocks`, 8 bytes per 100 ms) rather than by libebur128, unless `libebur128Gating` (the tests
    /// compare the two) or 100 ms is not a whole number of frames.
    public convenience init(channelCount: Int, sampleRate: Int, truePeak: Bool = true,
                            ignoringStartTransient: Bool = false, histogram: Bool = false) throws(RecorderError) {
        try self.init(channelCount: channelCount, sampleRate: sampleRate, truePeak: truePeak,
                      ignoringStartTransient: ignoringStartTransient, histogram: histogram, libebur128Gating: false)
    }

    init(channelCount: Int, sampleRate: Int, truePeak: Bool, ignoringStartTransient: Bool, histogram: Bool,
         libebur128Gating: Bool) throws(RecorderError) {
        let ownGating = !histogram && !libebur128Gating && sampleRate % 10 == 0
        let modes = ownGating ? EBUR128_MODE_S.rawValue | EBUR128_MODE_M.rawValue
            : EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue
            | EBUR128_MODE_S.rawValue | EBUR128_MODE_M.rawValue | (histogram ? EBUR128_MODE_HISTOGRAM.rawValue : 0)
        guard MeterLimits.loudnessChannelCounts.contains(channelCount), MeterLimits.loudnessSampleRates.contains(sampleRate),
              let state = libebur128Lock.withLock({ ebur128_init(UInt32(channelCount), UInt(sampleRate), Int32(modes)) }) else {
            throw RecorderError(.invalidFormat,
                "libebur128 cannot measure \(channelCount) channels at \(sampleRate) Hz: use 1 to "
                + "\(MeterLimits.loudnessChannelCounts.upperBound) channels at \(MeterLimits.loudnessSampleRates.lowerBound) "
                + "to \(MeterLimits.loudnessSampleRates.upperBound) Hz")
        }
        self.state = state
        gatedBlocks = ownGating ? GatedBlocks() : nil
        transientLeft = ignoringStartTransient ? Self.startTransientFrames : 0
        scanners = truePeak ? [TruePeakScanner](repeating: TruePeakScanner(sampleRate: sampleRate), count: channelCount) : []
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        step = max(1, sampleRate / 10)
    }

    deinit { ebur128_destroy(&state) }

    /// How much each channel counts in the loudness (BS.1770-4): `ChannelWeight`, one per channel.
    /// Before any frame is added. Without it libebur128's default applies: L, R, C, LFE (left out),
    /// Ls, Rs for channels 1–6 (L, R, Ls, Rs for four; L, R, C, Ls, Rs for five), and channels 7 on are
    /// left out.
    func weigh(_ weights: [ChannelWeight]) {
        for (index, weight) in weights.prefix(channelCount).enumerated() {
            let role = switch weight {
            case .excluded: EBUR128_UNUSED.rawValue
            case .full: EBUR128_CENTER.rawValue
            case .surround: EBUR128_LEFT_SURROUND.rawValue
            }
            ebur128_set_channel(state, UInt32(index), Int32(role))
        }
    }

    /// Adds interleaved samples in −1…1 (full scale = 1.0).
    public func add(interleaved samples: UnsafeBufferPointer<Float>) {
        guard let base = samples.baseAddress else { return }
        var frames = samples.count / channelCount
        var offset = 0
        // In pieces that end on the 100 ms grid, so the maxima are sampled where ffmpeg samples them.
        while frames > 0 {
            // The start transient's frames in a call of their own, so that its true peak can be left out.
            let count = min(frames, step - intoStep, transientLeft > 0 ? transientLeft : .max)
            ebur128_add_frames_float(state, base + offset * channelCount, count)
            for channel in scanners.indices {
                scanners[channel].add(base + offset * channelCount + channel, count: count, stride: channelCount,
                                      counting: transientLeft == 0)
            }
            transientLeft = max(0, transientLeft - count)
            offset += count
            frames -= count
            intoStep += count
            if intoStep == step {
                intoStep = 0
                stepEnded()
            }
        }
    }

    /// At the end of a 100 ms step: its energy into the ring, and the maxima of the windows ending here.
    private func stepEnded() {
        var loudness = 0.0
        let energy = ebur128_loudness_window(state, 100, &loudness) == Int32(EBUR128_SUCCESS.rawValue) && loudness.isFinite
            ? pow(10, (loudness + 0.691) / 10) : 0
        stepEnergies[ringIndex] = energy
        ringIndex = (ringIndex + 1) % stepEnergies.count
        var sum = 0.0
        var momentaryEnergy = 0.0
        for back in 1...stepEnergies.count {
            sum += stepEnergies[(ringIndex - back + stepEnergies.count) % stepEnergies.count]
            if back == 4 { momentaryEnergy = sum / 4 }
        }
        let momentary = Self.loudness(momentaryEnergy)
        let shortTerm = Self.loudness(sum / Double(stepEnergies.count))
        gatedBlocks?.stepEnded(lastFour: momentaryEnergy, lastThirty: sum / Double(stepEnergies.count))
        if let momentary { maxMomentary = max(maxMomentary ?? momentary, momentary) }
        if let shortTerm { maxShortTerm = max(maxShortTerm ?? shortTerm, shortTerm) }
        onStep?(momentary, shortTerm)
    }

    /// LUFS of a mean-square energy (BS.1770: −0.691 + 10·log10), nil for silence.
    private static func loudness(_ energy: Double) -> Double? { energy > 0 ? -0.691 + 10 * log10(energy) : nil }

    /// Adds interleaved signed 16-bit big-endian samples (what a `Recorder` captures by default).
    public func add(bigEndianS16 bytes: UnsafeRawBufferPointer) {
        let count = floats(bigEndianS16: bytes, into: &scratch)
        scratch.withUnsafeBufferPointer { add(interleaved: UnsafeBufferPointer(rebasing: $0[0..<count])) }
    }

    private func value(_ query: (UnsafeMutablePointer<ebur128_state>?, UnsafeMutablePointer<Double>) -> Int32) -> Double? {
        var result = 0.0
        guard query(state, &result) == Int32(EBUR128_SUCCESS.rawValue), result.isFinite else { return nil }
        return result
    }

    /// LUFS over the last 400 ms; nil while silent (below the meter's floor) or empty.
    public var momentary: Double? {
        if let energy = ringEnergy(steps: 4) { return Self.loudness(energy) }
        return value { ebur128_loudness_momentary($0, $1) }
    }
    /// LUFS over the last 3 s; nil while silent.
    public var shortTerm: Double? {
        if let energy = ringEnergy(steps: stepEnergies.count) { return Self.loudness(energy) }
        return value { ebur128_loudness_shortterm($0, $1) }
    }

    /// On a 100 ms step boundary (where a recorder's 100 ms buffers end), the mean energy of the last
    /// `steps` steps: the window's own energy, from the ring instead of summing the window's samples
    /// again (asked at every buffer, libebur128's 3 s sum was 215 s of CPU for a day of 48 kHz stereo).
    /// Nil between boundaries, or when 100 ms is not a whole number of frames.
    private func ringEnergy(steps: Int) -> Double? {
        guard intoStep == 0, sampleRate % 10 == 0 else { return nil }
        var sum = 0.0
        for back in 1...steps { sum += stepEnergies[(ringIndex - back + stepEnergies.count) % stepEnergies.count] }
        return sum / Double(steps)
    }
    /// Gated LUFS over everything added; nil when nothing passes the gates (silence).
    public var integrated: Double? {
        if let gatedBlocks { return gatedBlocks.integrated }
        return value { ebur128_loudness_global($0, $1) }
    }
    /// LU (EBU Tech 3342); 0 when no short-term block passes the gates; nil when undefined.
    public var loudnessRange: Double? {
        if let gatedBlocks { return gatedBlocks.loudnessRange }
        return value { ebur128_loudness_range($0, $1) }
    }

    /// True peak of `channel` so far, in dBTP; nil for silence.
    public func truePeak(channel: Int) -> Double? {
        guard scanners.indices.contains(channel) else { return nil }
        let peak = Double(max(scanners[channel].samplePeak, scanners[channel].interpolatedPeak))
        return peak > 0 ? 20 * log10(peak) : nil
    }
}
