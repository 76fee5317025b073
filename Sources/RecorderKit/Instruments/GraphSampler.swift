// The graph's sampler (AVAudioUnitSampler's): a SoundFont's instrument played by MIDI messages, rendered
// by FluidSynth into two channels each render pass.
import Glibc
import Locking

/// A sampler: a source node that plays one instrument of a SoundFont (`.sf2`) through FluidSynth, on
/// every MIDI channel, as Apple's sampler plays its one instrument. Notes and controllers sent from any
/// thread take effect at the start of the next render pass. FluidSynth's own reverb and chorus are off
/// (effects are the graph's nodes); the whole SoundFont is loaded into memory when it is loaded (no
/// disk read while playing: a program change is instant).
///
/// Output: two channels, `masterGain` dB (0 dB: FluidSynth's default gain of 0.2) and `stereoPan` as a
/// balance. Silent until a SoundFont is loaded.
///
/// ## Threads
/// Every member may be called from any thread, a tap's or a completion handler included. A load blocks
/// its caller (the file is read), never the graph. FluidSynth's rate is fixed when its synthesiser is
/// made: at the graph's rate when the sampler is attached, else at 44.1 kHz and made again when the
/// graph starts at another (load after attaching, as Apple's examples do, and nothing is made twice).
public final class GraphSampler: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: `synth`, `settings` and `synthRate` under `synthLock` (held by the render pass
    // while FluidSynth renders, and by every message sent, so the synth is never freed under a call);
    // `gainDB`, `panPercent` and `tuningCents` under `lock`. Lock order: the graph's, then the synth's; the
    // node's lock is only ever taken alone or inside the synth's (a load reads the tuning), never around it.
    private let synthLock = PosixMutex()
    private var synth: FluidSynthLibrary.Synth?
    private var settings: FluidSynthLibrary.Settings?
    private var library: FluidSynthLibrary?
    private var synthRate = 0
    private var gainDB: Float = 0
    private var panPercent: Float = 0
    private var tuningCents: Float = 0
    private var left: [Float] = []
    private var right: [Float] = []

    /// The General MIDI melodic bank's MSB (kAUSampler_DefaultMelodicBankMSB).
    public static let melodicBankMSB: UInt8 = 0x79
    /// The General MIDI percussion bank's MSB (kAUSampler_DefaultPercussionBankMSB).
    public static let percussionBankMSB: UInt8 = 0x78
    /// The default bank LSB (kAUSampler_DefaultBankLSB).
    public static let defaultBankLSB: UInt8 = 0

    /// A sampler with nothing loaded.
    public override init() { super.init() }

    deinit {
        if let library, let synth { library.deleteSynth(synth) }
        if let library, let settings { library.deleteSettings(settings) }
    }

    /// None: a sampler is a source.
    public override var inputBusCount: Int { 0 }
    override var kind: String { "sampler" }
    override func outputChannels(_ pass: RenderPass) -> Int { 2 }

    /// Loads program `program` (0…127) of the bank `bankMSB`/`bankLSB` of the SoundFont at `path` on every
    /// MIDI channel: the melodic bank (MSB 0x79) is the SoundFont's bank `bankLSB`, the percussion bank
    /// (MSB 0x78) its bank 128 (drum kits), any other MSB the bank MSB × 128 + LSB. Notes playing stop.
    /// - Throws: `.cannotReadFile` when the file cannot be read; `.invalidFormat` when it is not a
    ///   SoundFont FluidSynth reads or has no such preset; `.invalidState` when FluidSynth cannot be loaded.
    public func loadSoundBank(path: String, program: UInt8, bankMSB: UInt8, bankLSB: UInt8) throws(RecorderError) {
        try load(Loaded(path: path, program: program, bankMSB: bankMSB, bankLSB: bankLSB), rate: attachedGraph?.sampleRate ?? 44_100)
    }

    /// What was loaded last: loaded again when the graph starts at another rate.
    private struct Loaded {
        let path: String, program: UInt8, bankMSB: UInt8, bankLSB: UInt8
    }
    /// Under `synthLock`.
    private var loaded: Loaded?

    /// Makes a synthesiser at `rate` (FluidSynth's rate is fixed when it is made) with `what` loaded, and
    /// puts it in place of the one before.
    private func load(_ what: Loaded, rate: Int) throws(RecorderError) {
        let (path, program, bankMSB, bankLSB) = (what.path, what.program, what.bankMSB, what.bankLSB)
        try FluidSynthLibrary.checkSoundFont(path)
        let library = try FluidSynthLibrary.loaded()
        let (settings, synth) = try library.makeSynth(rate: rate)
        func fail(_ code: RecorderError.Code, _ message: String) -> RecorderError {
            library.deleteSynth(synth)
            library.deleteSettings(settings)
            return RecorderError(code, message)
        }
        FluidSynthLibrary.lastMessage.withLock { $0 = "" }
        let id = library.soundFontLoad(synth, path, 0)
        guard id >= 0, let font = library.soundFontByID(synth, id) else {
            let said = FluidSynthLibrary.lastMessage.withLock { $0 }
            throw fail(.invalidFormat, "cannot load the SoundFont '\(path)': \(said.isEmpty ? "FluidSynth cannot read it" : said); "
                       + "give a SoundFont 2 (.sf2) file")
        }
        let bank = Self.bank(msb: bankMSB, lsb: bankLSB)
        guard library.soundFontPreset(font, bank, Int32(program & 0x7F)) != nil else {
            throw fail(.invalidFormat, "the SoundFont '\(path)' has no preset \(program & 0x7F) in bank \(bank) (MSB \(bankMSB), "
                       + "LSB \(bankLSB)); choose one it has")
        }
        for channel in Int32(0)..<16 { _ = library.programSelect(synth, channel, id, bank, Int32(program & 0x7F)) }
        let old = synthLock.withLock { () -> (FluidSynthLibrary.Synth?, FluidSynthLibrary.Settings?) in
            // The tuning read where a setter's message would go: a change made during the load reaches
            // this synth, through the setter's own message after the swap if not here.
            let tuning = lock.withLock { tuningCents }
            for channel in Int32(0)..<16 { _ = library.setGenerator(synth, channel, Self.fineTune, tuning) }
            defer { (self.synth, self.settings, self.library, synthRate, loaded) = (synth, settings, library, rate, what) }
            return (self.synth, self.settings)
        }
        if let synth = old.0 { library.deleteSynth(synth) }
        if let settings = old.1 { library.deleteSettings(settings) }
    }

    /// FluidSynth's bank number for Apple's bank MSB and LSB.
    static func bank(msb: UInt8, lsb: UInt8) -> Int32 {
        switch msb {
        case melodicBankMSB: Int32(lsb & 0x7F)
        case percussionBankMSB: 128
        default: Int32(msb & 0x7F) * 128 + Int32(lsb & 0x7F)
        }
    }

    /// SoundFont generator 52, fine tune (cents), FluidSynth's GEN_FINETUNE.
    private static let fineTune: Int32 = 52

    /// Whether a SoundFont is loaded.
    public var isLoaded: Bool { synthLock.withLock { synth != nil } }

    /// Sends `message` to the synth if one is loaded (values already in MIDI's ranges).
    private func send(_ message: (FluidSynthLibrary, FluidSynthLibrary.Synth) -> Void) {
        synthLock.withLock {
            if let synth, let library { message(library, synth) }
        }
    }

    /// The graph starts (or the sampler was attached to a running one): a synthesiser made at another
    /// rate (loaded before the sampler was attached) is made again at the graph's, its SoundFont loaded
    /// again (notes sent to the old one are dropped; it is silent in the meantime).
    override func graphStarted(_ graph: PlaybackGraph) {
        let rate = graph.sampleRate
        guard let what = synthLock.withLock({ synthRate != rate ? loaded : nil }) else { return }
        try? load(what, rate: rate)
    }

    /// Note on: `note` and `velocity` 0…127 (higher bits dropped), `channel` 0…15; velocity 0 is a note off.
    public func startNote(_ note: UInt8, velocity: UInt8, channel: UInt8) {
        send { _ = $0.noteOn($1, Int32(channel & 0x0F), Int32(note & 0x7F), Int32(velocity & 0x7F)) }
    }

    /// Note off.
    public func stopNote(_ note: UInt8, channel: UInt8) {
        send { _ = $0.noteOff($1, Int32(channel & 0x0F), Int32(note & 0x7F)) }
    }

    /// A control change (`controller` and `value` 0…127).
    public func sendController(_ controller: UInt8, value: UInt8, channel: UInt8) {
        send { _ = $0.controlChange($1, Int32(channel & 0x0F), Int32(controller & 0x7F), Int32(value & 0x7F)) }
    }

    /// Pitch bend, 0…16 383 (8 192 is none; clamped).
    public func sendPitchBend(_ bend: UInt16, channel: UInt8) {
        send { _ = $0.pitchBend($1, Int32(channel & 0x0F), Int32(min(bend, 16_383))) }
    }

    /// Channel pressure (aftertouch), 0…127.
    public func sendPressure(_ pressure: UInt8, channel: UInt8) {
        send { _ = $0.channelPressure($1, Int32(channel & 0x0F), Int32(pressure & 0x7F)) }
    }

    /// Polyphonic key pressure, 0…127.
    public func sendPressure(forKey key: UInt8, value: UInt8, channel: UInt8) {
        send { _ = $0.keyPressure($1, Int32(channel & 0x0F), Int32(key & 0x7F), Int32(value & 0x7F)) }
    }

    /// Program change on `channel` (its bank kept); a program the SoundFont lacks leaves silence on it.
    public func sendProgramChange(_ program: UInt8, channel: UInt8) {
        send { _ = $0.programChange($1, Int32(channel & 0x0F), Int32(program & 0x7F)) }
    }

    /// Bank select (Apple's MSB and LSB, as `loadSoundBank` reads them), then program change.
    public func sendProgramChange(_ program: UInt8, bankMSB: UInt8, bankLSB: UInt8, channel: UInt8) {
        send {
            _ = $0.bankSelect($1, Int32(channel & 0x0F), Self.bank(msb: bankMSB, lsb: bankLSB))
            _ = $0.programChange($1, Int32(channel & 0x0F), Int32(program & 0x7F))
        }
    }

    /// Every note off, at once (all channels).
    public override func reset() { send { _ = $0.allNotesOff($1, -1) } }

    /// The output's gain, −90…12 dB (clamped; NaN ignored).
    public var masterGain: Float {
        get { lock.withLock { gainDB } }
        set { if !newValue.isNaN { lock.withLock { gainDB = min(12, max(-90, newValue)) } } }
    }

    /// The output's balance, −100 (left) … 100 (right) (clamped; NaN ignored): the far side falls
    /// linearly to silence at ±100.
    public var stereoPan: Float {
        get { lock.withLock { panPercent } }
        set { if !newValue.isNaN { lock.withLock { panPercent = min(100, max(-100, newValue)) } } }
    }

    /// Tuning of every note, −2 400…2 400 cents (clamped; NaN ignored), notes sounding included.
    public var globalTuning: Float {
        get { lock.withLock { tuningCents } }
        set {
            guard !newValue.isNaN else { return }
            let cents = min(2_400, max(-2_400, newValue))
            lock.withLock { tuningCents = cents }
            send { library, synth in for channel in Int32(0)..<16 { _ = library.setGenerator(synth, channel, Self.fineTune, cents) } }
        }
    }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        let (gainDB, pan) = lock.withLock { (self.gainDB, panPercent / 100) }
        if left.count < frames {
            left = [Float](repeating: 0, count: frames)
            right = [Float](repeating: 0, count: frames)
        }
        let rendered = synthLock.withLock { () -> Bool in
            // A synthesiser at another rate (until `graphStarted` makes one at the graph's) stays silent.
            guard let synth, let library, synthRate == pass.sampleRate else { return false }
            return left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    library.writeFloat(synth, Int32(frames), l.baseAddress!, 0, 1, r.baseAddress!, 0, 1) == 0
                }
            }
        }
        guard rendered else { return }
        let gain = Float(pow(10, Double(gainDB) / 20))
        let toLeft = gain * (pan > 0 ? 1 - pan : 1), toRight = gain * (pan < 0 ? 1 + pan : 1)
        let outLeft = buffer.channel(0), outRight = buffer.channel(1)
        for frame in 0..<frames {
            let l = left[frame] * toLeft, r = right[frame] * toRight
            outLeft[frame] = l.isFinite ? l : 0
            outRight[frame] = r.isFinite ? r : 0
        }
    }
}
