// AVAudioUnitEQ over RecorderKit's GraphEQ: its bands (AVAudioUnitEQFilterParameters), their filter
// types, and the global gain.
import Foundation
import RecorderKit

/// Apple's EQ filter types, with Apple's raw values (each a cookbook biquad: `BiquadResponse`).
public enum AVAudioUnitEQFilterType: Int, @unchecked Sendable {
    case parametric = 0, lowPass = 1, highPass = 2, resonantLowPass = 3, resonantHighPass = 4, bandPass = 5, bandStop = 6,
         lowShelf = 7, highShelf = 8, resonantLowShelf = 9, resonantHighShelf = 10
}

/// One band of an `AVAudioUnitEQ`; get them from its `bands`. Each change is clamped to Apple's range
/// (a NaN ignored) and heard from the next render pass, crossfaded without a click.
open class AVAudioUnitEQFilterParameters: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable; the band's values live in the Sendable GraphEQ.
    private let equaliser: GraphEQ
    private let index: Int

    init(_ equaliser: GraphEQ, index: Int) {
        self.equaliser = equaliser
        self.index = index
    }

    private var band: GraphEQBand { equaliser.band(index) }

    /// The filter type. Default `.parametric`.
    open var filterType: AVAudioUnitEQFilterType {
        get { AVAudioUnitEQFilterType(rawValue: band.response.rawValue) ?? .parametric }
        set { equaliser.setBand(index, response: BiquadResponse(rawValue: newValue.rawValue) ?? .peaking) }
    }

    /// Hertz, 20 … half the rate (read back as set above it; the filter uses at most 0.499 × the rate). Default 1 000.
    open var frequency: Float {
        get { band.frequency }
        set { equaliser.setBand(index, frequency: newValue) }
    }

    /// Octaves, 0.05…5. Default 1.
    open var bandwidth: Float {
        get { band.bandwidth }
        set { equaliser.setBand(index, bandwidth: newValue) }
    }

    /// Decibels, −96…24. Default 0.
    open var gain: Float {
        get { band.gain }
        set { equaliser.setBand(index, gain: newValue) }
    }

    /// Whether the band is bypassed. Default true (as Apple's: set it false to hear the band).
    open var bypass: Bool {
        get { band.bypass }
        set { equaliser.setBand(index, bypass: newValue) }
    }
}

/// A multi-band equaliser: the bands in cascade, then `globalGain` (`GraphEQ`).
open class AVAudioUnitEQ: AVAudioUnitEffect, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode; `bands` is immutable.
    private var equaliser: GraphEQ { graphNode as! GraphEQ }
    /// The bands, each bypassed until set.
    public let bands: [AVAudioUnitEQFilterParameters]

    /// An equaliser of `numberOfBands` bands (0…1 024; a negative number makes none, more than 1 024 make 1 024).
    public init(numberOfBands: Int) {
        let equaliser = GraphEQ(bandCount: numberOfBands)
        bands = (0..<equaliser.bandCount).map { AVAudioUnitEQFilterParameters(equaliser, index: $0) }
        super.init(effect: equaliser)
    }

    /// An equaliser of one band.
    public convenience init() { self.init(numberOfBands: 1) }

    /// Decibels after the bands, −96…24 (clamped; NaN ignored). Default 0.
    open var globalGain: Float {
        get { equaliser.globalGain }
        set { equaliser.globalGain = newValue }
    }
}
