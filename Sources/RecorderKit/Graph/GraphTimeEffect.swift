// The graph's time effects: time-pitch (speed and pitch apart, SoundTouch's WSOLA) and varispeed (speed
// with pitch, its resampler), each pulling as much of its input as its output needs.

/// An effect whose output's length differs from its input's: it pulls its input in chunks through a
/// `TimeStretcher` until it has the frames asked. Bypassed, or neutral (rate 1, pitch 0) before it was
/// ever used, its input passes unchanged.
public class GraphTimeEffect: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; the settings under `lock`, the stretcher and its scratch used
    // only by the render pass (under the graph's lock).
    private var bypassed = false
    private var stretcher: TimeStretcher?
    private var interleaved: [Float] = []
    private var stretched: [Float] = []

    override init() { super.init() }

    /// Whether the effect is bypassed (its input passes unchanged).
    public var bypass: Bool {
        get { lock.withLock { bypassed } }
        set { lock.withLock { bypassed = newValue } }
    }

    /// Drops what the stretcher holds.
    public override func reset() { lock.withLock { stretcher = nil } }

    override var kind: String { "time effect" }

    /// Applies the effect's settings to `stretcher` (under `lock`); true if they leave audio unchanged.
    func apply(to stretcher: TimeStretcher?) -> Bool { true }

    override func outputChannels(_ pass: RenderPass) -> Int { min(16, pass.inputChannels(of: self)) }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        guard let upstream = pass.source(into: self, bus: 0) else { return }
        let channels = buffer.channelCount
        let chosen = lock.withLock { () -> TimeStretcher? in
            if bypassed || (self.stretcher == nil && apply(to: nil)) { return nil }
            if self.stretcher == nil || self.stretcher?.channelCount != channels {
                self.stretcher = TimeStretcher(channelCount: channels, sampleRate: pass.sampleRate)
            }
            _ = apply(to: self.stretcher)
            return self.stretcher
        }
        guard let stretcher = chosen else {
            let audio = pass.pull(upstream, frames: frames)
            for channel in 0..<channels {
                let from = audio.channel(channel), to = buffer.channel(channel)
                for frame in 0..<frames { to[frame] = from[frame] }
            }
            return
        }
        let got = Self.stretch(stretcher, frames: frames, channels: channels, into: &stretched, scratch: &interleaved) { chunk in
            pass.pull(upstream, frames: chunk, again: true)
        }
        for channel in 0..<channels {
            let to = buffer.channel(channel)
            for frame in 0..<got { to[frame] = stretched[frame * channels + channel] }
        }
    }

    /// Takes `frames` frames out of `stretcher` into `output` (interleaved), pulling chunks of input from
    /// `pull` as it asks; returns the frames got (fewer only if the input gives nothing for long: silence
    /// follows).
    static func stretch(_ stretcher: TimeStretcher, frames: Int, channels: Int, into output: inout [Float], scratch: inout [Float],
                        pull: (Int) -> GraphBuffer) -> Int {
        if output.count < frames * channels { output = [Float](repeating: 0, count: frames * channels) }
        var got = 0
        var pulls = 0
        while got < frames {
            got += output.withUnsafeMutableBufferPointer {
                stretcher.receive(into: $0.baseAddress! + got * channels, maxFrames: frames - got)
            }
            guard got < frames else { break }
            pulls += 1
            guard pulls <= 256 else { break }
            let chunk = max(256, frames)
            let input = pull(chunk)
            if scratch.count < chunk * channels { scratch = [Float](repeating: 0, count: chunk * channels) }
            for channel in 0..<channels {
                let from = input.channel(channel)
                for frame in 0..<chunk { scratch[frame * channels + channel] = from[frame] }
            }
            scratch.withUnsafeBufferPointer { stretcher.put($0.baseAddress!, frames: chunk) }
        }
        return got
    }
}

/// Speed and pitch apart (AVAudioUnitTimePitch's): `rate` 1/32…32 keeps the pitch, `pitch`
/// −2400…2400 cents keeps the speed.
public final class GraphTimePitch: GraphTimeEffect, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode (`speed`, `cents` under `lock`).
    private var speed = 1.0
    private var cents = 0.0

    /// A time-pitch at rate 1 and pitch 0 (its input passes unchanged).
    public override init() { super.init() }

    /// The speed, 1/32…32: clamped; a NaN is ignored.
    public var rate: Double {
        get { lock.withLock { speed } }
        set { if !newValue.isNaN { lock.withLock { speed = min(32, max(1.0 / 32, newValue)) } } }
    }

    /// The pitch shift in cents, −2400…2400: clamped; a NaN is ignored.
    public var pitch: Double {
        get { lock.withLock { cents } }
        set { if !newValue.isNaN { lock.withLock { cents = min(2_400, max(-2_400, newValue)) } } }
    }

    override func apply(to stretcher: TimeStretcher?) -> Bool {
        if let stretcher, stretcher.rate != speed || stretcher.pitch != cents { stretcher.set(rate: speed, pitch: cents) }
        return speed == 1 && cents == 0
    }
}

/// Speed with pitch, as a tape or a turntable (AVAudioUnitVarispeed's): `rate` 0.25…4, an octave up at 2.
public final class GraphVarispeed: GraphTimeEffect, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode (`speed` under `lock`).
    private var speed = 1.0

    /// A varispeed at rate 1 (its input passes unchanged).
    public override init() { super.init() }

    /// The speed, 0.25…4: clamped; a NaN is ignored. The pitch follows (1 200 × log2(rate) cents).
    public var rate: Double {
        get { lock.withLock { speed } }
        set { if !newValue.isNaN { lock.withLock { speed = min(4, max(0.25, newValue)) } } }
    }

    override func apply(to stretcher: TimeStretcher?) -> Bool {
        if let stretcher, stretcher.rate != speed { stretcher.set(varispeed: speed) }
        return speed == 1
    }
}
