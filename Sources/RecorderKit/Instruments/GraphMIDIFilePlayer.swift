// The graph's MIDI file player (AVMIDIPlayer's): a Standard MIDI File played through a whole SoundFont by
// FluidSynth's sequencer, its events placed by the samples rendered (each note starts on its frame).
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Locking

/// Plays a MIDI file through a SoundFont: a source node whose FluidSynth synthesiser and MIDI player
/// advance by the frames the graph renders, so each event falls on the frame its time gives (at the
/// player's rate). The SoundFont's own programs play, as the file's program changes choose them (General
/// MIDI's: channel 10 drums). Silent until loaded, and while not playing (what rings on rings out).
///
/// ## Threads
/// Every member may be called from any thread. `finished` is called once per play that reaches the
/// file's end, on a queue of the node's, never on the render thread.
public final class GraphMIDIFilePlayer: GraphNode, @unchecked Sendable {
    // @unchecked Sendable: `synth`, `settings`, `player`, `library`, `rate`, `playing`, `tempo`, `handler`,
    // `pendingTick`, `loaded` and `midiFile` under `synthLock` (held by the render pass while FluidSynth renders); the
    // render buffers used only by the render pass.
    private let synthLock = PosixMutex()
    private var library: FluidSynthLibrary?
    private var settings: FluidSynthLibrary.Settings?
    private var synth: FluidSynthLibrary.Synth?
    private var player: FluidSynthLibrary.Player?
    private var rate = 0
    private var playing = false
    private var tempo = 1.0
    /// A move asked and not yet made by FluidSynth's player (which moves at its next tick): the tick.
    private var pendingTick: Int?
    private var handler: (@Sendable () -> Void)?
    private var loaded: (soundFont: String, midi: [UInt8])?
    private var left: [Float] = []
    private var right: [Float] = []
    private let notices = DispatchQueue(label: "GraphMIDIFilePlayer.finished")
    private var midiFile: MIDIFile?
    /// The file loaded, read for its timing (nil before a load).
    public var file: MIDIFile? { synthLock.withLock { midiFile } }

    /// A player with nothing loaded.
    public override init() { super.init() }

    /// Debian's General MIDI SoundFont (`apt-get install fluid-soundfont-gm`), if one is installed and
    /// readable. Any thread.
    public static var defaultSoundFont: String? {
        ["/usr/share/sounds/sf2/default-GM.sf2", "/usr/share/sounds/sf2/FluidR3_GM.sf2"].first { access($0, R_OK) == 0 }
    }

    deinit { release() }

    /// None: a source.
    public override var inputBusCount: Int { 0 }
    override var kind: String { "MIDI file player" }
    override func outputChannels(_ pass: RenderPass) -> Int { 2 }

    /// Loads the MIDI file `midi` (its bytes) and the SoundFont at `soundFont`, at the graph's rate (44.1
    /// kHz before it is attached; made again at the graph's when it starts at another).
    /// - Throws: `.invalidFormat` when the bytes are not a Standard MIDI File or the SoundFont is not one;
    ///   `.cannotReadFile` when it cannot be read; `.invalidState` when FluidSynth cannot be loaded.
    public func load(midi: [UInt8], soundFont: String) throws(RecorderError) {
        guard let parsed = MIDIFile(midi) else {
            throw RecorderError(.invalidFormat, "not a Standard MIDI File (no MThd header, or a track cut short); give a .mid file")
        }
        try FluidSynthLibrary.checkSoundFont(soundFont)
        try make(soundFont: soundFont, midi: midi, rate: attachedGraph?.sampleRate ?? 44_100)
        synthLock.withLock { midiFile = parsed }
    }

    /// Makes a synthesiser and player at `rate` with the SoundFont and file loaded, in place of the old.
    private func make(soundFont: String, midi: [UInt8], rate: Int) throws(RecorderError) {
        let library = try FluidSynthLibrary.loaded()
        let (settings, synth) = try library.makeSynth(rate: rate)
        FluidSynthLibrary.lastMessage.withLock { $0 = "" }
        guard library.soundFontLoad(synth, soundFont, 1) >= 0 else {
            library.deleteSynth(synth)
            library.deleteSettings(settings)
            let said = FluidSynthLibrary.lastMessage.withLock { $0 }
            throw RecorderError(.invalidFormat, "cannot load the SoundFont '\(soundFont)': \(said.isEmpty ? "FluidSynth cannot read it" : said); "
                                + "give a SoundFont 2 (.sf2) file")
        }
        let player = library.newPlayer(synth)
        guard let player, midi.withUnsafeBytes({ library.playerAddMemory(player, $0.baseAddress!, $0.count) }) == 0 else {
            if let player { library.deletePlayer(player) }
            library.deleteSynth(synth)
            library.deleteSettings(settings)
            throw RecorderError(.invalidFormat, "FluidSynth cannot read the MIDI file; give a Standard MIDI File")
        }
        synthLock.withLock {
            release()
            (self.library, self.settings, self.synth, self.player, self.rate) = (library, settings, synth, player, rate)
            loaded = (soundFont, midi)
            playing = false
            _ = library.playerSetTempo(player, FluidSynthLibrary.tempoInternal, tempo)
        }
    }

    /// Frees the synthesiser and player (under `synthLock`, or from deinit).
    private func release() {
        guard let library else { return }
        if let player { library.deletePlayer(player) }
        if let synth { library.deleteSynth(synth) }
        if let settings { library.deleteSettings(settings) }
        (player, synth, settings) = (nil, nil, nil)
    }

    override func graphStarted(_ graph: PlaybackGraph) {
        let (wanted, rate) = synthLock.withLock { (loaded, self.rate) }
        guard let wanted, rate != graph.sampleRate else { return }
        try? make(soundFont: wanted.soundFont, midi: wanted.midi, rate: graph.sampleRate)
    }

    /// Plays from where it is (the start, after a load or the end); `finished` is called when the file's
    /// last event has been rendered. Nothing happens before a load.
    public func play(finished: (@Sendable () -> Void)? = nil) {
        synthLock.withLock {
            guard let library, let player else { return }
            if let file = midiFile, pendingTick == nil, Int(library.playerCurrentTick(player)) >= file.lastTick {
                // At the end: from the start again.
                _ = library.playerSeek(player, 0)
                pendingTick = 0
            }
            handler = finished
            playing = library.playerPlay(player) == 0
        }
    }

    /// Stops where it is (notes sounding are let go); `finished` is not called.
    public func stop() {
        synthLock.withLock {
            guard let library, let player, let synth else { return }
            _ = library.playerStop(player)
            _ = library.allNotesOff(synth, -1)
            playing = false
            handler = nil
        }
    }

    /// Whether it plays.
    public var isPlaying: Bool { synthLock.withLock { playing } }

    /// Seconds from the file's start to where it plays (through its tempo map); setting it moves there (a
    /// negative or NaN time: the start; past the end: the end).
    public var position: Double {
        get {
            synthLock.withLock {
                guard let library, let player, let file = midiFile else { return 0 }
                return file.seconds(atTick: min(file.lastTick, pendingTick ?? Int(library.playerCurrentTick(player))))
            }
        }
        set {
            synthLock.withLock {
                guard let library, let player, let file = midiFile else { return }
                let tick = file.tick(atSeconds: newValue)
                _ = library.playerSeek(player, Int32(clamping: tick))
                pendingTick = tick
            }
        }
    }

    /// The tempo's multiplier, 0.25…4 (1: the file's own; clamped; NaN ignored).
    public var rateMultiplier: Double {
        get { synthLock.withLock { tempo } }
        set {
            guard !newValue.isNaN else { return }
            synthLock.withLock {
                tempo = min(4, max(0.25, newValue))
                if let library, let player { _ = library.playerSetTempo(player, FluidSynthLibrary.tempoInternal, tempo) }
            }
        }
    }

    override func render(_ frames: Int, into buffer: GraphBuffer, pass: RenderPass) {
        if left.count < frames {
            left = [Float](repeating: 0, count: frames)
            right = [Float](repeating: 0, count: frames)
        }
        let (rendered, ended) = synthLock.withLock { () -> (Bool, (@Sendable () -> Void)?) in
            guard let synth, let library, let player, rate == pass.sampleRate else { return (false, nil) }
            let wrote = left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    library.writeFloat(synth, Int32(frames), l.baseAddress!, 0, 1, r.baseAddress!, 0, 1) == 0
                }
            }
            guard playing else { return (wrote, nil) }
            pendingTick = nil
            // The end: the file's last event played (FluidSynth's player counts on past it).
            guard let file = midiFile, Int(library.playerCurrentTick(player)) >= file.lastTick else { return (wrote, nil) }
            _ = library.playerStop(player)
            playing = false
            defer { handler = nil }
            return (wrote, handler)
        }
        if let ended { notices.async(execute: ended) }
        guard rendered else { return }
        let outLeft = buffer.channel(0), outRight = buffer.channel(1)
        for frame in 0..<frames {
            outLeft[frame] = left[frame].isFinite ? left[frame] : 0
            outRight[frame] = right[frame].isFinite ? right[frame] : 0
        }
    }
}
