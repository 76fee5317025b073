// AVMIDIPlayer: a MIDI file played through a SoundFont (RecorderKit's GraphMIDIFilePlayer, FluidSynth's
// sequencer) by an engine of its own, to the default sink.
import Foundation
import RecorderKit

public typealias AVMIDIPlayerCompletionHandler = @Sendable () -> Void

/// Plays a Standard MIDI File with a SoundFont's instruments to the default sink (or PULSE_SINK's). Every
/// member may be used from any thread; the completion handler runs on a queue of the player's.
open class AVMIDIPlayer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the engine, its node and the file player are made in init and used through
    // their own thread-safe calls.
    private let engine = AVAudioEngine()
    private let node: AVAudioNode
    private let filePlayer: GraphMIDIFilePlayer

    /// Reads the MIDI file at `inURL` and the SoundFont (.sf2) at `bankURL` (nil: Debian's General MIDI
    /// SoundFont, `apt-get install fluid-soundfont-gm`). Throws an NSError whose description says what
    /// could not be read and what to do (Apple's DLS banks are not read here: give an .sf2).
    public convenience init(contentsOf inURL: URL, soundBankURL bankURL: URL?) throws {
        guard inURL.isFileURL else {
            throw statusError(kAudioFileFileNotFoundError, "cannot read the MIDI file \(inURL.absoluteString): not a file URL; give a file's URL")
        }
        let bytes: [UInt8]
        do throws(RecorderError) {
            bytes = try MIDIFile.readBytes(path: inURL.path)
        } catch {
            throw statusError(error.code == .cannotReadFile ? kAudioFileFileNotFoundError : kAudioFileInvalidFileError, error.message)
        }
        try self.init(data: Data(bytes), soundBankURL: bankURL)
    }

    /// As `init(contentsOf:soundBankURL:)`, the MIDI file's bytes given.
    public init(data: Data, soundBankURL bankURL: URL?) throws {
        let bank = bankURL?.path ?? GraphMIDIFilePlayer.defaultSoundFont
        guard let bank else {
            throw statusError(kAudioFileFileNotFoundError, "AVMIDIPlayer: no SoundFont given and none installed; "
                              + "apt-get install fluid-soundfont-gm, or give soundBankURL an .sf2 file")
        }
        let made = GraphMIDIFilePlayer()
        filePlayer = made
        node = AVAudioNode(graphNode: made)
        super.init()
        do throws(RecorderError) {
            try made.load(midi: [UInt8](data), soundFont: bank)
        } catch {
            throw statusError(kAudioFileInvalidFileError, error.message)
        }
        engine.attach(node)
        engine.connect(node, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
    }

    deinit { engine.stop() }

    /// Starts the engine (so that `play` begins at once). Any failure is said by `play`.
    open func prepareToPlay() {
        if !engine.isRunning { try? engine.start() }
    }

    /// Plays from `currentPosition`; `completionHandler` runs when the file's last event has been played
    /// (not after `stop`). Without a sound server nothing plays and the handler is not called (a line in
    /// `OpenAVFAudioLastErrorMessage()` says why).
    open func play(_ completionHandler: AVMIDIPlayerCompletionHandler? = nil) {
        if !engine.isRunning {
            do {
                try engine.start()
            } catch {
                AVAudioEngine.noteRefusal("AVMIDIPlayer.play(): \((error as NSError).localizedDescription)")
                return
            }
        }
        filePlayer.play(finished: completionHandler)
    }

    /// Stops where it is.
    open func stop() { filePlayer.stop() }

    /// Seconds from the start to the file's last event, through its tempo map.
    open var duration: TimeInterval { filePlayer.file?.duration ?? 0 }

    /// Whether it plays.
    open var isPlaying: Bool { filePlayer.isPlaying }

    /// The tempo's multiplier, 0.25…4 (1: the file's; clamped; NaN ignored).
    open var rate: Float {
        get { Float(filePlayer.rateMultiplier) }
        set { filePlayer.rateMultiplier = Double(newValue) }
    }

    /// Seconds from the start to where it plays; set it to move (clamped to 0…`duration`).
    open var currentPosition: TimeInterval {
        get { filePlayer.position }
        set { filePlayer.position = newValue }
    }
}
