// Meters with ballistics, sample by sample: sample peak with hold and clip detection, VU (IEC 60268-17),
// PPM type I and II (IEC 60268-10). Each takes samples in −1…1 for one channel.
import Glibc

/// The values the meters accept; outside them an initializer throws `RecorderError` `.invalidFormat`
/// with a one-line message naming the value and the range.
public enum MeterLimits {
    /// Sample rates of the peak-hold meter: any rate a stream can have, up to libebur128's maximum
    /// (2.8224 MHz, 64 × 44.1 kHz).
    public static let sampleRates = 1...2_822_400
    /// Sample rates of the VU and PPM meters, whose time constants are tens of milliseconds and whose
    /// calibration uses a 5 kHz tone: from 8 kHz.
    public static let ballisticSampleRates = 8_000...2_822_400
    /// Channels of one `StandardMeter` (libsndfile's maximum).
    public static let channelCounts = 1...1_024
    /// Channels and rates libebur128 measures (`LoudnessMeter`, the loudness kind of `StandardMeter`).
    public static let loudnessChannelCounts = 1...64
    /// Rates the loudness meter takes: libebur128's upper limit, and from 8 kHz. K-weighting's high
    /// shelf is at 1.68 kHz: libebur128 takes 16 Hz and up, but below twice the shelf its filter is past
    /// Nyquist (a −20 dBFS sine at 2 kHz read +2 300 LUFS), and at 4 kHz a 100 Hz tone read 0.47 dB
    /// from its 48 kHz loudness (0.22 dB at 8 kHz).
    public static let loudnessSampleRates = 8_000...2_822_400
    /// Channels of a programme: what a take measures its own loudness over unasked (a WAV's bext chunk,
    /// the page's loudness meter). Up to 7.1, the largest of BS.1770's common layouts. A take of more
    /// channels is a multitrack (a desk's 32 inputs): the sum of its tracks is no programme anyone mixes
    /// to, and measuring it costs what no take should pay unasked: libebur128 keeps the last 3 s of every
    /// channel as doubles (74 MB at 32 channels and 96 kHz) and filtered them at 28 % of a core on the
    /// delivery thread here, against parecord's 0.5 % for the whole take. Asked for (`--meter loudness`,
    /// `analyze`), loudness is measured on up to 64 channels.
    public static let programmeChannelCounts = 1...8
    /// Peak hold, seconds.
    public static let peakHold = 0.0...3_600.0
    /// The dBFS level of a sine that reads 0 VU.
    public static let vuReference = -60.0...0.0

    static func checkSampleRate(_ sampleRate: Int, _ meter: String,
                                in rates: ClosedRange<Int> = ballisticSampleRates) throws(RecorderError) {
        guard rates.contains(sampleRate) else {
            throw RecorderError(.invalidFormat, "the \(meter) meter cannot run at \(sampleRate) Hz: use "
                + "\(rates.lowerBound) to \(rates.upperBound) Hz")
        }
    }

    static func checkPeakHold(_ hold: Double, decay: Double, clipRun: Int) throws(RecorderError) {
        guard peakHold.contains(hold) else {
            throw RecorderError(.invalidFormat, "invalid peak hold \(hold) s: use 0 to \(Int(peakHold.upperBound)) seconds, e.g. 1.5")
        }
        guard decay.isFinite, decay > 0 else {
            throw RecorderError(.invalidFormat, "invalid peak decay \(decay) dB/s: use a number above 0, e.g. 20")
        }
        guard clipRun >= 1 else {
            throw RecorderError(.invalidFormat, "invalid clip run \(clipRun): use 1 or more consecutive full-scale samples")
        }
    }

    static func checkVUReference(_ reference: Double) throws(RecorderError) {
        guard vuReference.contains(reference) else {
            throw RecorderError(.invalidFormat, "invalid VU reference \(reference) dBFS: use a level from "
                + "\(Int(vuReference.lowerBound)) to 0 dBFS, e.g. -18 (EBU) or -20 (SMPTE)")
        }
    }
}

/// Sample peak with peak hold and decay, and clip detection.
///
/// `peak` is the held peak in dBFS: a new maximum is held for `hold` seconds, then falls at `decay` dB/s
/// until a higher sample arrives. A sample is at full scale when |s| ≥ 32 767/32 768; `clippedSamples`
/// counts them, and `clipEvents` counts runs of at least `clipRun` consecutive full-scale samples.
public struct PeakHoldMeter: Sendable {
    /// Frames per second of the samples fed to `add`.
    public let sampleRate: Int
    /// Seconds a new maximum is held before it falls.
    public let hold: Double
    /// The fall after the hold, dB per second.
    public let decay: Double
    /// Consecutive full-scale samples that make one clip event.
    public let clipRun: Int
    /// Held peak, linear (full scale 1.0).
    private var held: Double = 0
    private var heldFor = 0
    private var run = 0
    /// Samples at full scale so far.
    public private(set) var clippedSamples: Int64 = 0
    /// Runs of at least `clipRun` full-scale samples so far.
    public private(set) var clipEvents: Int64 = 0

    /// - Throws: `.invalidFormat` for a rate outside `MeterLimits.sampleRates`, a hold outside
    ///   `MeterLimits.peakHold`, a decay that is not a positive number of dB/s, or a clip run under 1.
    public init(sampleRate: Int, hold: Double = 1.5, decay: Double = 20, clipRun: Int = 1) throws(RecorderError) {
        try MeterLimits.checkSampleRate(sampleRate, "peak", in: MeterLimits.sampleRates)
        try MeterLimits.checkPeakHold(hold, decay: decay, clipRun: clipRun)
        self.sampleRate = sampleRate
        self.hold = hold
        self.decay = decay
        self.clipRun = clipRun
    }

    /// The held peak in dBFS (−160 for silence, the floor of every dB reading in RecorderKit).
    public var peak: Double { floored(20 * log10(held)) }

    /// Feeds samples (full scale ±1.0), every `stride`-th one (one channel of an interleaved stream). Allocates nothing.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>, stride: Int = 1) {
        let holdSamples = Int(hold * Double(sampleRate))
        let fall = pow(10, -decay / 20 / Double(sampleRate))
        var index = 0
        while index < samples.count {
            let magnitude = Double(abs(samples[index]))
            if magnitude >= held {
                held = magnitude
                heldFor = 0
            } else if heldFor < holdSamples {
                heldFor += 1
            } else {
                held = max(magnitude, held * fall)
            }
            if magnitude >= 32_767.0 / 32_768 {
                clippedSamples += 1
                run += 1
                if run == clipRun { clipEvents += 1 }
            } else {
                run = 0
            }
            index += stride
        }
    }
}

/// A VU meter (IEC 60268-17): full-wave rectified signal through a critically placed second-order
/// movement, so that a suddenly applied sine reaches 99 % of its reading in 300 ms and overshoots it by
/// 1.25 %, falling back the same way. `reading` is in VU: 0 VU is the steady reading of a sine at
/// `reference` dBFS (default −18 dBFS, the EBU alignment).
public struct VUMeter: Sendable {
    /// Frames per second of the samples fed to `add`.
    public let sampleRate: Int
    /// The dBFS level of a sine that reads 0 VU.
    public let reference: Double
    /// Damping ratio for 1.25 % overshoot, and the natural frequency (rad/s) that makes the first
    /// crossing of 99 % fall at 300 ms; both fixed by the standard's numbers.
    static let damping: Double = {
        let l = log(0.0125)
        return -l / (Double.pi * Double.pi + l * l).squareRoot()
    }()
    static let naturalFrequency: Double = {
        // Step response of the second-order movement: first time it reaches 0.99, for ω = 1 rad/s.
        let z = damping, wd = (1 - z * z).squareRoot()
        func response(_ t: Double) -> Double { 1 - exp(-z * t) * (cos(wd * t) + z / wd * sin(wd * t)) }
        var low = 0.0, high = 20.0
        for _ in 0..<100 {
            let middle = (low + high) / 2
            if response(middle) >= 0.99 { high = middle } else { low = middle }
        }
        return high / 0.3
    }()
    private var position = 0.0
    private var velocity = 0.0
    /// Steady needle position for a full-scale sine (the mean of |sin|: 2/π).
    private let referencePosition: Double

    /// - Throws: `.invalidFormat` for a rate outside `MeterLimits.ballisticSampleRates` or a reference outside
    ///   `MeterLimits.vuReference`.
    public init(sampleRate: Int, reference: Double = -18) throws(RecorderError) {
        try MeterLimits.checkSampleRate(sampleRate, "VU")
        try MeterLimits.checkVUReference(reference)
        self.sampleRate = sampleRate
        self.reference = reference
        referencePosition = 2 / Double.pi * pow(10, reference / 20)
    }

    /// The needle position relative to 0 VU (1.0 = 0 VU), linear.
    public var needle: Double { position / referencePosition }
    /// The reading in VU (dB relative to the reference), −160 at rest.
    public var reading: Double { floored(20 * log10(max(needle, 0))) }

    /// Feeds samples (full scale ±1.0), every `stride`-th one (one channel of an interleaved stream). Allocates nothing.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>, stride: Int = 1) {
        let w = Self.naturalFrequency, z = Self.damping, dt = 1 / Double(sampleRate)
        var index = 0
        while index < samples.count {
            let input = Double(abs(samples[index]))
            // Semi-implicit Euler on x'' = ω²(u − x) − 2ζω x' (stable and accurate at audio rates).
            velocity += (w * w * (input - position) - 2 * z * w * velocity) * dt
            position += velocity * dt
            index += stride
        }
    }
}

/// A quasi-peak programme meter (IEC 60268-10): the rectified signal charges the reading with an
/// integration time such that a 5 kHz tone burst of `burst` reads −2 dB against the steady tone, and the
/// reading falls at a constant rate in dB. Type I (DIN): 5 ms burst, 20 dB fall in 1.7 s. Type II
/// (BBC/EBU): 10 ms burst, 24 dB fall in 2.8 s. `reading` is in dB relative to the steady reading of a
/// full-scale 1 kHz sine, so a steady sine reads its peak level in dBFS.
public struct PPMMeter: Sendable {
    /// IEC 60268-10 type I (DIN, `ppm1`) or type II (BBC/EBU, `ppm2`).
    public enum Kind: String, Sendable, CaseIterable {
        /// Type I, the DIN PPM (`ppm1`): 5 ms burst, 20 dB fall in 1.7 s, read in dB.
        case typeI = "ppm1"
        /// Type II, the BBC/EBU PPM (`ppm2`): 10 ms burst, 24 dB fall in 2.8 s, read in marks.
        case typeII = "ppm2"

        /// The burst that must read −2 dB.
        public var burst: Double { self == .typeI ? 0.005 : 0.010 }
        /// The fall rate, dB per second.
        public var fall: Double { self == .typeI ? 20 / 1.7 : 24 / 2.8 }
    }

    /// Type I or type II.
    public let kind: Kind
    /// Frames per second of the samples fed to `add`.
    public let sampleRate: Int
    /// Per-sample charge factor, calibrated at init so the burst reads −2 dB.
    private let charge: Double
    private let release: Double
    /// The steady value of a full-scale 1 kHz sine: a quasi-peak detector settles a little under the
    /// peak (0.2 dB for type II), and the reading is relative to it.
    private let steady: Double
    private var value = 0.0

    /// - Throws: `.invalidFormat` for a rate outside `MeterLimits.ballisticSampleRates`.
    public init(kind: Kind, sampleRate: Int) throws(RecorderError) {
        try MeterLimits.checkSampleRate(sampleRate, "PPM")
        self.kind = kind
        self.sampleRate = sampleRate
        release = pow(10, -kind.fall / 20 / Double(sampleRate))
        charge = Self.calibrate(kind: kind, sampleRate: sampleRate, release: release)
        steady = Self.response(seconds: 1, frequency: 1_000, sampleRate: sampleRate, charge: charge, release: release)
    }

    /// The reading in dB relative to a full-scale sine's, −160 at rest.
    public var reading: Double { floored(20 * log10(value / steady)) }

    private static func step(_ value: inout Double, _ input: Double, charge: Double, release: Double) {
        if input > value { value += (input - value) * charge } else { value *= release }
    }

    /// Bisection on the charge factor: the reading after a 5 kHz burst of `kind.burst` must be 2 dB under
    /// the reading after 1 s of the same tone.
    private static func calibrate(kind: Kind, sampleRate: Int, release: Double) -> Double {
        func reading(after seconds: Double, charge: Double) -> Double {
            response(seconds: seconds, frequency: 5_000, sampleRate: sampleRate, charge: charge, release: release)
        }
        var low = 1e-6, high = 1.0
        for _ in 0..<60 {
            let middle = (low * high).squareRoot()
            let ratio = reading(after: kind.burst, charge: middle) / reading(after: 0.2, charge: middle)
            if 20 * log10(ratio) > -2 { high = middle } else { low = middle }
        }
        return (low * high).squareRoot()
    }

    /// The value after `seconds` of a full-scale sine of `frequency` from rest.
    private static func response(seconds: Double, frequency: Double, sampleRate: Int, charge: Double, release: Double) -> Double {
        var value = 0.0
        for index in 0..<Int(seconds * Double(sampleRate)) {
            step(&value, abs(sin(2 * .pi * frequency * Double(index) / Double(sampleRate))), charge: charge, release: release)
        }
        return value
    }

    /// Feeds samples (full scale ±1.0), every `stride`-th one (one channel of an interleaved stream). Allocates nothing.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>, stride: Int = 1) {
        var index = 0
        while index < samples.count {
            Self.step(&value, Double(abs(samples[index])), charge: charge, release: release)
            index += stride
        }
    }
}

/// A dB reading with RecorderKit's one spelling of silence: −160 (as AVAudioRecorder's meters and
/// `LevelMeterState.silence`), never −∞ or NaN.
func floored(_ decibels: Double) -> Double {
    decibels.isNaN ? Double(LevelMeterState.silence) : max(Double(LevelMeterState.silence), decibels)
}
