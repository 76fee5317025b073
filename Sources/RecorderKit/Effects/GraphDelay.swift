// The graph's delay (AVAudioUnitDelay's): a delay line of up to 2 s per channel with feedback through a
// low-pass filter, blended with the input.

/// A delay, as a tape echo: each channel's input goes into a line; what comes out `delayTime` later,
/// through a Butterworth low-pass at `lowPassCutoff` (none from 0.499 × the rate up), is the wet signal, and
/// `feedback` of it goes back into the line. `wetDryMix` blends it with the input.
///
/// An impulse comes back `delayTime` later (to the frame when `delayTime` × rate is whole; a fraction of
/// a frame is interpolated linearly), then again every `delayTime` at `feedback` times the gain before.
/// A change of `delayTime` glides over the next pass (the pitch bends, as a tape's would, rather than a
/// click).
///
/// ## Threads
/// Every member may be called from any thread.
public final class GraphDelay: GraphEffect, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; the settings under `lock`, the lines and filters used only by
    // the render pass.
    private var seconds = 1.0
    private var feedbackPercent: Float = 50
    private var cutoff: Float = 15_000
    private var mixPercent: Float = 100
    private var clearRequested = false

    /// The longest delay, in seconds.
    public static let maximumDelay = 2.0

    private var lines: [[Float]] = []
    private var written = 0
    private var lineRate = 0
    /// The delay in frames the last pass ended at (it glides from there to the new setting).
    private var lastFrames = -1.0
    private var filters: [(Double, Double)] = []
    private var filterMadeFor = (cutoff: Float(-1), sampleRate: 0)
    private var filter = BiquadCoefficients.identity
    private var wet = EffectScratch()

    /// A delay of 1 s, feedback 50 %, low-pass at 15 kHz, all wet (AVAudioUnitDelay's defaults).
    public override init() { super.init() }

    /// Seconds, 0…2 (clamped; NaN ignored).
    public var delayTime: Double {
        get { lock.withLock { seconds } }
        set { if let value = Self.clamped(newValue, 0...Self.maximumDelay) { lock.withLock { seconds = value } } }
    }

    /// Percent of the wet signal fed back, −100…100 (clamped; NaN ignored).
    public var feedback: Float {
        get { lock.withLock { feedbackPercent } }
        set { if let value = Self.clamped(newValue, -100...100) { lock.withLock { feedbackPercent = value } } }
    }

    /// The wet signal's low-pass cutoff in hertz, 10 Hz and up (clamped; NaN ignored; read back as set:
    /// from 0.499 × the graph's rate up there is no filter, so Apple's top, half the rate, is none).
    public var lowPassCutoff: Float {
        get { lock.withLock { cutoff } }
        set { if let value = Self.clamped(newValue, 10...Float(1 << 20)) { lock.withLock { cutoff = value } } }
    }

    /// Percent wet, 0…100 (0: the input alone, sample for sample; clamped; NaN ignored).
    public var wetDryMix: Float {
        get { lock.withLock { mixPercent } }
        set { if let value = Self.clamped(newValue, 0...100) { lock.withLock { mixPercent = value } } }
    }

    /// Empties the line at the next pass.
    public override func reset() { lock.withLock { clearRequested = true } }

    override var kind: String { "delay" }

    override func process(_ buffer: GraphBuffer, frames: Int, channels: Int, sampleRate: Int) {
        let (seconds, feedback, cutoff, mix, clear) = lock.withLock { () -> (Double, Float, Float, Float, Bool) in
            defer { clearRequested = false }
            return (self.seconds, feedbackPercent / 100, self.cutoff, mixPercent / 100, clearRequested)
        }
        let length = Int(Self.maximumDelay * Double(sampleRate)) + 2
        if lines.count != channels || lineRate != sampleRate || clear {
            lines = Array(repeating: [Float](repeating: 0, count: length), count: channels)
            filters = Array(repeating: (0, 0), count: channels)
            written = 0
            lineRate = sampleRate
            lastFrames = -1
        }
        if filterMadeFor != (cutoff, sampleRate) {
            filterMadeFor = (cutoff, sampleRate)
            filter = Double(cutoff) >= 0.499 * Double(sampleRate) ? .identity
                : BiquadCoefficients(.lowPass, frequency: Double(cutoff), bandwidth: 1, gain: 0, sampleRate: sampleRate)
        }
        let target = seconds * Double(sampleRate)
        let start = lastFrames < 0 ? target : lastFrames
        lastFrames = target
        wet.reserve(channels: channels, frames: frames)
        let c = filter
        for channel in 0..<channels {
            let audio = buffer.channel(channel)
            var (s1, s2) = filters[channel]
            wet.withChannel(channel) { out in
                lines[channel].withUnsafeMutableBufferPointer { line in
                    var at = written
                    for frame in 0..<frames {
                        let delay = start + (target - start) * Double(frame + 1) / Double(frames)
                        let whole = Int(delay), fraction = Float(delay - Double(whole))
                        let input = audio[frame]
                        // The line's frame `back` frames ago; 0 is this frame's input (nothing fed back yet).
                        func sample(_ back: Int) -> Float { back == 0 ? input : line[(at - back + length) % length] }
                        let delayed = sample(whole) * (1 - fraction) + (fraction > 0 ? sample(whole + 1) * fraction : 0)
                        let y = c.b0 * Double(delayed) + s1
                        s1 = c.b1 * Double(delayed) - c.a1 * y + s2
                        s2 = c.b2 * Double(delayed) - c.a2 * y
                        let echo = Float(y)
                        out[frame] = echo
                        let fed = whole == 0 ? input : input + feedback * echo
                        line[at] = fed.isFinite ? fed : 0
                        at += 1
                        if at == length { at = 0 }
                    }
                }
                if abs(s1) < 1e-30 || !s1.isFinite { s1 = 0 }
                if abs(s2) < 1e-30 || !s2.isFinite { s2 = 0 }
                filters[channel] = (s1, s2)
                Self.blend(out, into: audio, frames: frames, mix: mix)
            }
        }
        written = (written + frames) % length
    }
}
