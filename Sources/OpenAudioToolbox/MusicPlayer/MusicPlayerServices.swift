// Music Player calls with Apple's signatures: a player plays its sequence through its own General MIDI
// synthesizer (RecorderKit's GraphMIDIFilePlayer: FluidSynth with Debian's GM SoundFont) to the server's
// default sink, counting its time in beats through the sequence's tempo map. Any thread.
import Foundation
import Locking
import RecorderKit

/// One player. Its state is under `lock`; the graph and its node lock themselves (the node's end notice
/// comes on the node's own queue and takes `lock`, which is never held while waiting for that queue).
final class MusicPlayerObject: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is under `lock`.
    let lock = PosixMutex(recursive: true)
    var sequence: MusicSequenceObject?
    private var graph: PlaybackGraph?
    private var node: GraphMIDIFilePlayer?
    /// The sequence as prerolled: its end, in seconds of the file.
    private var fileDuration = 0.0
    private(set) var playing = false
    private(set) var rate = 1.0
    /// Where it is when not playing (beats).
    private var stoppedTime: MusicTimeStamp = 0
    /// Once the sequence's end has been rendered: the graph's frame then and the file's seconds there
    /// (the time goes on counting, as Apple's player's does, until it is stopped).
    private var pastEnd: (frame: Int64, seconds: Double)?
    /// The sequence's file as last loaded into the synthesizer (a start with the sequence unchanged
    /// does not load it again).
    private var loaded: [UInt8]?
    /// Counts the plays started: an end notice from an earlier play is ignored.
    private var generation = 0

    /// Makes the synthesizer and loads the sequence (as a Standard MIDI File of the tracks heard) at the
    /// current time. `kAudioToolboxErr_NoSequence` without a sequence; a missing SoundFont or FluidSynth
    /// is `kAudioFileFileNotFoundError` with the line saying what to install.
    func preroll() -> OSStatus {
        lock.withLock {
            guard let sequence else { return kAudioToolboxErr_NoSequence }
            guard !playing else { return noErr }  // what plays is already loaded
            guard let soundFont = GraphMIDIFilePlayer.defaultSoundFont else {
                QueueRegistry.noteFailure("MusicPlayer plays through a General MIDI SoundFont and none is installed: "
                    + "apt-get install fluid-soundfont-gm")
                return kAudioFileFileNotFoundError
            }
            let bytes = sequence.midiFile(resolution: 480, forPlaying: true)
            if let node, bytes == loaded {
                node.position = sequence.seconds(forBeats: stoppedTime)
                return noErr
            }
            let made = node ?? GraphMIDIFilePlayer()
            do throws(RecorderError) {
                if graph == nil {
                    let madeGraph = PlaybackGraph()
                    try madeGraph.attach(made)
                    try madeGraph.connect(made, to: madeGraph.mainMixer)
                    graph = madeGraph
                }
                try made.load(midi: bytes, soundFont: soundFont)
            } catch {
                QueueRegistry.noteFailure(error)
                return error.code == .invalidState ? kAudioFileFileNotFoundError : kAudioFileInvalidFileError
            }
            node = made
            loaded = bytes
            fileDuration = made.file?.duration ?? 0
            made.rateMultiplier = rate
            made.position = sequence.seconds(forBeats: stoppedTime)
            return noErr
        }
    }

    /// Plays from the current time (prerolling first: the sequence as it is now).
    func start() -> OSStatus {
        lock.withLock {
            guard !playing else { return noErr }
            let status = preroll()
            guard status == noErr, let graph, let node, let sequence else { return status }
            do throws(RecorderError) {
                try graph.start(clientName: ProcessInfo.processInfo.processName)
            } catch {
                QueueRegistry.noteFailure(error)
                return kAudioUnitErr_NoConnection
            }
            let seconds = sequence.seconds(forBeats: stoppedTime)
            playing = true
            if seconds >= fileDuration {
                pastEnd = (graph.renderedFrameCount, seconds)
            } else {
                play(node)
            }
            return noErr
        }
    }

    /// Plays the synthesizer's file from where it is, as a new play whose end notice counts.
    private func play(_ node: GraphMIDIFilePlayer) {
        generation += 1
        let play = generation
        pastEnd = nil
        node.play { [weak self] in self?.reachedEnd(play) }
    }

    private func reachedEnd(_ play: Int) {
        lock.withLock {
            guard playing, play == generation, pastEnd == nil, let graph else { return }
            pastEnd = (graph.renderedFrameCount, fileDuration)
        }
    }

    func stop() {
        lock.withLock {
            guard playing else { return }
            stoppedTime = time
            playing = false
            pastEnd = nil
            generation += 1
            node?.stop()
            graph?.stop()
        }
    }

    /// The time in beats: where the synthesizer has rendered to, through the tempo map (past the end,
    /// counting on at the rate).
    var time: MusicTimeStamp {
        lock.withLock {
            guard playing, let sequence, let graph, let node else { return stoppedTime }
            if let pastEnd {
                let elapsed = Double(graph.renderedFrameCount - pastEnd.frame) / Double(graph.sampleRate) * rate
                return sequence.beats(forSeconds: pastEnd.seconds + elapsed)
            }
            return sequence.beats(forSeconds: node.position)
        }
    }

    func setTime(_ beats: MusicTimeStamp) {
        lock.withLock {
            stoppedTime = max(0, beats)
            guard let sequence, let node else { return }
            let seconds = sequence.seconds(forBeats: stoppedTime)
            node.position = seconds
            guard playing, let graph else { return }
            if seconds >= fileDuration {
                node.stop()
                generation += 1
                pastEnd = (graph.renderedFrameCount, seconds)
            } else if !node.isPlaying {
                // At or past the end (its notice perhaps not yet come): play again from the new time.
                node.position = seconds
                play(node)
            }
        }
    }

    func setRate(_ scalar: Double) {
        lock.withLock {
            rate = scalar
            node?.rateMultiplier = scalar
        }
    }

    func dispose() {
        stop()
        lock.withLock {
            if let node { graph?.detach(node) }
            (graph, node, sequence) = (nil, nil, nil)
        }
    }
}

enum MusicPlayerRegistry {
    static let players = HandleRegistry<MusicPlayerObject>()
    static func with(_ handle: MusicPlayer, _ body: (MusicPlayerObject) -> OSStatus) -> OSStatus { players.with(handle, body) }
}

/// A new player with no sequence.
@discardableResult
public func NewMusicPlayer(_ outPlayer: UnsafeMutablePointer<MusicPlayer?>) -> OSStatus {
    outPlayer.pointee = MusicPlayerRegistry.players.add(MusicPlayerObject())
    return noErr
}

/// Stops and disposes of the player.
@discardableResult
public func DisposeMusicPlayer(_ inPlayer: MusicPlayer) -> OSStatus {
    guard let player = MusicPlayerRegistry.players.remove(inPlayer) else { return kAudio_ParamError }
    player.dispose()
    return noErr
}

/// Gives the player a sequence (nil: none), stopping it first; its time goes back to 0.
@discardableResult
public func MusicPlayerSetSequence(_ inPlayer: MusicPlayer, _ inSequence: MusicSequence?) -> OSStatus {
    MusicPlayerRegistry.with(inPlayer) { player in
        var sequence: MusicSequenceObject?
        if let inSequence {
            guard let found = SequenceRegistry.sequences.find(inSequence) else { return kAudio_ParamError }
            sequence = found
        }
        player.stop()
        player.lock.withLock { player.sequence = sequence }
        player.setTime(0)
        return noErr
    }
}

/// The player's sequence, if any.
@discardableResult
public func MusicPlayerGetSequence(_ inPlayer: MusicPlayer, _ outSequence: UnsafeMutablePointer<MusicSequence?>) -> OSStatus {
    MusicPlayerRegistry.with(inPlayer) { player in
        guard let sequence = player.lock.withLock({ player.sequence }) else { return kAudioToolboxErr_NoSequence }
        outSequence.pointee = OpaquePointer(Unmanaged.passUnretained(sequence).toOpaque())
        return noErr
    }
}

/// Moves to `inTime` beats (negative: 0); while playing, from there at once.
@discardableResult
public func MusicPlayerSetTime(_ inPlayer: MusicPlayer, _ inTime: MusicTimeStamp) -> OSStatus {
    MusicPlayerRegistry.with(inPlayer) { player in
        guard inTime.isFinite else { return kAudio_ParamError }
        player.setTime(min(inTime, 1e9))
        return noErr
    }
}

/// The time in beats (where the synthesizer has rendered to: ahead of what is heard by the stream's
/// latency, about 0.1 s); it goes on counting past the sequence's end until the player is stopped.
@discardableResult
public func MusicPlayerGetTime(_ inPlayer: MusicPlayer, _ outTime: UnsafeMutablePointer<MusicTimeStamp>) -> OSStatus {
    MusicPlayerRegistry.with(inPlayer) { player in
        outTime.pointee = player.time
        return noErr
    }
}

/// Makes the synthesizer and loads the sequence, so that `MusicPlayerStart` starts at once.
@discardableResult
public func MusicPlayerPreroll(_ inPlayer: MusicPlayer) -> OSStatus { MusicPlayerRegistry.with(inPlayer) { $0.preroll() } }

/// Plays the sequence (as it is now) from the current time to the server's default sink (PULSE_SINK's);
/// waits until the stream plays. `kAudioToolboxErr_NoSequence` without one.
@discardableResult
public func MusicPlayerStart(_ inPlayer: MusicPlayer) -> OSStatus { MusicPlayerRegistry.with(inPlayer) { $0.start() } }

/// Stops where it is (notes sounding are let go).
@discardableResult
public func MusicPlayerStop(_ inPlayer: MusicPlayer) -> OSStatus {
    MusicPlayerRegistry.with(inPlayer) { player in
        player.stop()
        return noErr
    }
}

/// Whether it plays (from `MusicPlayerStart` until `MusicPlayerStop`, past the sequence's end too).
@discardableResult
public func MusicPlayerIsPlaying(_ inPlayer: MusicPlayer, _ outIsPlaying: UnsafeMutablePointer<DarwinBoolean>) -> OSStatus {
    MusicPlayerRegistry.with(inPlayer) { player in
        outIsPlaying.pointee = DarwinBoolean(player.lock.withLock { player.playing })
        return noErr
    }
}

/// Scales the tempo, 0.25…4 (FluidSynth's player's range here; others are `kAudio_ParamError`, with a line).
@discardableResult
public func MusicPlayerSetPlayRateScalar(_ inPlayer: MusicPlayer, _ inScaleRate: Float64) -> OSStatus {
    MusicPlayerRegistry.with(inPlayer) { player in
        guard inScaleRate.isFinite, (0.25...4).contains(inScaleRate) else {
            QueueRegistry.noteFailure("cannot play at \(inScaleRate) times the tempo: give 0.25 to 4")
            return kAudio_ParamError
        }
        player.setRate(inScaleRate)
        return noErr
    }
}

/// The tempo's scale.
@discardableResult
public func MusicPlayerGetPlayRateScalar(_ inPlayer: MusicPlayer, _ outScaleRate: UnsafeMutablePointer<Float64>) -> OSStatus {
    MusicPlayerRegistry.with(inPlayer) { player in
        outScaleRate.pointee = player.lock.withLock { player.rate }
        return noErr
    }
}
