// What each of AVAudioUnitDistortionPreset's presets does here: a recipe of a few stages (band limit,
// ring modulation, decimation, bit reduction, a waveshaper, an echo), each preset a set of their settings.

/// AVAudioUnitDistortionPreset's presets, with Apple's raw values.
public enum DistortionPreset: Int, Sendable, CaseIterable {
    /// Apple's names; what each does here is its recipe (`DistortionRecipe.recipes`, the porting guide's table).
    case drumsBitBrush = 0, drumsBufferBeats, drumsLoFi, multiBrokenSpeaker, multiCellphoneConcert, multiDecimated1,
         multiDecimated2, multiDecimated3, multiDecimated4, multiDistortedFunk, multiDistortedCubed,
         multiDistortedSquared, multiEcho1, multiEcho2, multiEchoTight1, multiEchoTight2, multiEverythingIsBroken,
         speechAlienChatter, speechCosmicInterference, speechGoldenPi, speechRadioTower, speechWaves

    /// The preset's recipe.
    public var recipe: DistortionRecipe { DistortionRecipe.recipes[self]! }
}

/// The stages a distortion runs, in this order on the wet signal (after `preGain`): a band limit
/// (`lowCut`…`highCut` Hz, second-order each; 0 for none), ring modulation (times a sine of `ringFrequency` Hz,
/// blended at `ringMix`), decimation (each `decimation`-th sample held), bit reduction (to `bits`
/// bits; 0 for none), a waveshaper with `drive` dB before it, and an echo (`echoTime` s, `echoFeedback`).
public struct DistortionRecipe: Sendable, Equatable {
    /// The waveshaper's curve.
    public enum Shaper: Sendable, Equatable {
        /// No shaping.
        case none
        /// tanh: a valve's soft clipping.
        case soft
        /// Clipped at ±1: a transistor pushed past its rails.
        case hard
        /// 1.5 × (x − x³/3) within ±1 (full scale at ±1): odd harmonics, gently.
        case cubic
        /// x·|x| within ±1: a square law kept odd (odd harmonics, harsher than the cubic).
        case squared
    }
    /// A high-pass's corner in hertz (0: none).
    public var lowCut: Double = 0
    /// A low-pass's corner in hertz (0: none).
    public var highCut: Double = 0
    /// The ring modulator's sine in hertz.
    public var ringFrequency: Double = 0
    /// How much of the ring-modulated signal replaces the plain one, 0…1 (0: no ring modulation).
    public var ringMix: Float = 0
    /// Each sample held for this many (1: none).
    public var decimation = 1
    /// Bits kept (0: all).
    public var bits = 0
    /// Decibels before the waveshaper.
    public var drive: Float = 0
    /// The waveshaper.
    public var shaper = Shaper.none
    /// The echo's delay in seconds (0: none; at most 0.5).
    public var echoTime: Double = 0
    /// The echo's feedback, 0…1.
    public var echoFeedback: Float = 0

    /// The longest echo a recipe uses, in seconds.
    static let longestEcho = 0.5

    static let recipes: [DistortionPreset: DistortionRecipe] = [
        .drumsBitBrush: DistortionRecipe(bits: 6, drive: 6, shaper: .soft),
        .drumsBufferBeats: DistortionRecipe(decimation: 8, shaper: .none, echoTime: 0.125, echoFeedback: 0.5),
        .drumsLoFi: DistortionRecipe(highCut: 4_000, decimation: 4, bits: 8),
        .multiBrokenSpeaker: DistortionRecipe(lowCut: 500, highCut: 4_000, drive: 18, shaper: .hard),
        .multiCellphoneConcert: DistortionRecipe(lowCut: 300, highCut: 3_400, drive: 6, shaper: .soft),
        .multiDecimated1: DistortionRecipe(decimation: 2, bits: 12),
        .multiDecimated2: DistortionRecipe(decimation: 4, bits: 10),
        .multiDecimated3: DistortionRecipe(decimation: 8, bits: 8),
        .multiDecimated4: DistortionRecipe(decimation: 16, bits: 6),
        .multiDistortedFunk: DistortionRecipe(lowCut: 120, drive: 12, shaper: .soft),
        .multiDistortedCubed: DistortionRecipe(drive: 6, shaper: .cubic),
        .multiDistortedSquared: DistortionRecipe(drive: 6, shaper: .squared),
        .multiEcho1: DistortionRecipe(echoTime: 0.25, echoFeedback: 0.4),
        .multiEcho2: DistortionRecipe(echoTime: 0.5, echoFeedback: 0.5),
        .multiEchoTight1: DistortionRecipe(echoTime: 0.03, echoFeedback: 0.5),
        .multiEchoTight2: DistortionRecipe(echoTime: 0.06, echoFeedback: 0.6),
        .multiEverythingIsBroken: DistortionRecipe(ringFrequency: 70, ringMix: 0.5, decimation: 8, bits: 4, drive: 12,
                                                   shaper: .hard),
        .speechAlienChatter: DistortionRecipe(ringFrequency: 300, ringMix: 1),
        .speechCosmicInterference: DistortionRecipe(ringFrequency: 1_500, ringMix: 0.7, echoTime: 0.08, echoFeedback: 0.5),
        .speechGoldenPi: DistortionRecipe(ringFrequency: 3.14159, ringMix: 1),
        .speechRadioTower: DistortionRecipe(lowCut: 400, highCut: 2_800, bits: 10, drive: 9, shaper: .soft),
        .speechWaves: DistortionRecipe(ringFrequency: 0.5, ringMix: 0.8, echoTime: 0.15, echoFeedback: 0.3),
    ]
}
