// The graph's equaliser (AVAudioUnitEQ's): any number of bands, each a cookbook biquad, and a global gain.
import Glibc

/// One band of a `GraphEQ`: its response, frequency, bandwidth, gain and bypass (AVAudioUnitEQ's
/// defaults: a parametric band at 1 kHz, one octave, 0 dB, bypassed).
public struct GraphEQBand: Sendable, Equatable {
    /// The filter's response (AVAudioUnitEQFilterType's, the same raw values).
    public var response: BiquadResponse = .peaking
    /// Hertz, 20 … half the graph's rate (clamped when the band is used).
    public var frequency: Float = 1_000
    /// Octaves, 0.05…5.
    public var bandwidth: Float = 1
    /// Decibels, −96…24.
    public var gain: Float = 0
    /// A bypassed band does nothing.
    public var bypass = true

    /// A band with the defaults above.
    public init() {}
}

/// A multi-band equaliser: the bands in cascade (each a biquad by the RBJ Audio EQ Cookbook), then
/// `globalGain`. A band's coefficients are recomputed at the next pass after any of its parameters
/// changes, and that pass crossfades from the old filters to the new, so a change never clicks.
///
/// ## Threads
/// Every member may be called from any thread.
public final class GraphEQ: GraphEffect, @unchecked Sendable {
    // @unchecked Sendable: as GraphNode; `settings` and `version` under `lock`, the cascade and what it
    // was made from used only by the render pass.
    private var settings: [GraphEQBand]
    private var overall: Float = 0
    private var version = 0
    private var madeFrom = (version: -1, sampleRate: 0)
    private var cascade = BiquadCascade()
    /// A `reset()` asked for, carried out by the next pass (under `lock`).
    private var clearRequested = false

    /// The most bands an equaliser has: more asked are not made.
    public static let maximumBandCount = 1_024

    /// An equaliser of `bandCount` bands (0…1 024: clamped), each bypassed until set.
    public init(bandCount: Int) {
        settings = Array(repeating: GraphEQBand(), count: min(Self.maximumBandCount, max(0, bandCount)))
        super.init()
    }

    /// The bands.
    public var bandCount: Int { lock.withLock { settings.count } }

    /// Band `index`'s settings (a band past the last reads as a new band).
    public func band(_ index: Int) -> GraphEQBand {
        lock.withLock { settings.indices.contains(index) ? settings[index] : GraphEQBand() }
    }

    /// Changes band `index` (none past the last): the values given are clamped to their ranges, a NaN
    /// leaves the value it would replace; nil leaves a value as it is.
    public func setBand(_ index: Int, response: BiquadResponse? = nil, frequency: Float? = nil, bandwidth: Float? = nil,
                        gain: Float? = nil, bypass: Bool? = nil) {
        lock.withLock {
            guard settings.indices.contains(index) else { return }
            var band = settings[index]
            if let response { band.response = response }
            if let frequency, let value = Self.clamped(frequency, 20...Float(1 << 20)) { band.frequency = value }
            if let bandwidth, let value = Self.clamped(bandwidth, 0.05...5) { band.bandwidth = value }
            if let gain, let value = Self.clamped(gain, -96...24) { band.gain = value }
            if let bypass { band.bypass = bypass }
            guard band != settings[index] else { return }
            settings[index] = band
            version &+= 1
        }
    }

    /// The gain applied after the bands, −96…24 dB (clamped; NaN ignored).
    public var globalGain: Float {
        get { lock.withLock { overall } }
        set {
            guard let value = Self.clamped(newValue, -96...24) else { return }
            lock.withLock {
                guard value != overall else { return }
                overall = value
                version &+= 1
            }
        }
    }

    /// Clears the filters' memory at the next pass.
    public override func reset() { lock.withLock { clearRequested = true } }

    override var kind: String { "equaliser" }

    override func process(_ buffer: GraphBuffer, frames: Int, channels: Int, sampleRate: Int) {
        let (changed, clear) = lock.withLock { () -> ((bands: [GraphEQBand], gain: Float)?, Bool) in
            let clear = clearRequested
            clearRequested = false
            guard madeFrom.version != version || madeFrom.sampleRate != sampleRate else { return (nil, clear) }
            madeFrom = (version, sampleRate)
            return ((settings, overall), clear)
        }
        if clear { cascade.reset() }
        if let changed { cascade.set(Self.stages(changed.bands, globalGain: changed.gain, sampleRate: sampleRate)) }
        cascade.process(buffer, frames: frames, channels: channels)
    }

    /// The active bands' coefficients in order, the global gain folded into the first (or a stage of its
    /// own when every band is bypassed and the gain is not 0 dB).
    static func stages(_ bands: [GraphEQBand], globalGain: Float, sampleRate: Int) -> [BiquadCoefficients] {
        var stages = bands.filter { !$0.bypass }.map { band in
            BiquadCoefficients(band.response, frequency: Double(min(band.frequency, Float(sampleRate) / 2)),
                               bandwidth: Double(band.bandwidth), gain: Double(band.gain), sampleRate: sampleRate)
        }
        guard globalGain != 0 else { return stages }
        let factor = pow(10, Double(globalGain) / 20)
        if stages.isEmpty { stages = [BiquadCoefficients.identity.scaled(by: factor)] } else { stages[0] = stages[0].scaled(by: factor) }
        return stages
    }

}
