// AVAudioPlayerNode over RecorderKit's GraphPlayer: files, segments and buffers scheduled in order (buffers
// once or looped, at an optional time), each with its completion handler; play, play(at:), pause, stop.
import Foundation
import RecorderKit

public struct AVAudioPlayerNodeBufferOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The buffer plays again and again, until another interrupts it or the node stops.
    public static let loops = AVAudioPlayerNodeBufferOptions(rawValue: 1)
    /// The buffer replaces what is scheduled and playing.
    public static let interrupts = AVAudioPlayerNodeBufferOptions(rawValue: 2)
    /// The buffer replaces a looping buffer at the end of its loop.
    public static let interruptsAtLoop = AVAudioPlayerNodeBufferOptions(rawValue: 4)
}

public enum AVAudioPlayerNodeCompletionCallbackType: Int, Sendable {
    case dataConsumed = 0
    case dataRendered = 1
    case dataPlayedBack = 2
}

public typealias AVAudioPlayerNodeCompletionHandler = @Sendable (AVAudioPlayerNodeCompletionCallbackType) -> Void

/// Plays what is scheduled on it, at the engine's rate (a file or buffer at another rate is resampled).
/// Completion handlers run when an item has been rendered, or heard (`.dataPlayedBack`), on the render
/// thread; or on `stop()`, on the caller's.
open class AVAudioPlayerNode: AVAudioNode, AVAudioMixing, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    var player: GraphPlayer { graphNode as! GraphPlayer }

    public init() { super.init(graphNode: GraphPlayer()) }

    open override var numberOfInputs: Int { 0 }

    // MARK: Scheduling

    /// Schedules the whole of `file`, from `when`'s sample time in the player's timeline (frames since
    /// `play()`; silence until then), or nil: after what is scheduled before it. The handler runs once the
    /// file has been rendered (consumed), or on `stop()`.
    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: file.length), at: when,
                        completionHandler: completionHandler)
    }

    /// As `scheduleFile(_:at:completionHandler:)`, the handler called at the moment asked and told it:
    /// `.dataConsumed` and `.dataRendered` once the file has been rendered, `.dataPlayedBack` once its last
    /// frame has been heard (within 50 ms after, from the stream's clock; or when the engine stops first).
    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionCallbackType: AVAudioPlayerNodeCompletionCallbackType,
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: file.length), at: when,
                        completionCallbackType: completionCallbackType, completionHandler: completionHandler)
    }

    /// Schedules `numberFrames` frames of `file` from `startFrame` (clamped to the file), at `when` as
    /// `scheduleFile`. The file is read through its own handle (its `framePosition` is not moved); one
    /// that cannot be opened again is refused (`OpenAVFAudioLastErrorMessage()`) and its handler runs.
    public func scheduleSegment(_ file: AVAudioFile, startingFrame startFrame: AVAudioFramePosition, frameCount numberFrames: AVAudioFrameCount,
                                at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        schedule(file, from: startFrame, frames: numberFrames, at: when, completeWhen: .rendered, completion: completionHandler)
    }

    /// As `scheduleSegment(_:startingFrame:frameCount:at:completionHandler:)`, the handler called as
    /// `scheduleFile(_:at:completionCallbackType:completionHandler:)` says.
    public func scheduleSegment(_ file: AVAudioFile, startingFrame startFrame: AVAudioFramePosition, frameCount numberFrames: AVAudioFrameCount,
                                at when: AVAudioTime?, completionCallbackType: AVAudioPlayerNodeCompletionCallbackType,
                                completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        schedule(file, from: startFrame, frames: numberFrames, at: when, completeWhen: Self.moment(completionCallbackType),
                 completion: completionHandler.map { handler in { @Sendable in handler(completionCallbackType) } })
    }

    private func schedule(_ file: AVAudioFile, from startFrame: AVAudioFramePosition, frames numberFrames: AVAudioFrameCount,
                          at when: AVAudioTime?, completeWhen: GraphCompletion, completion: (@Sendable () -> Void)?) {
        do {
            let source = try GraphFile(path: file.url.path)
            player.schedule(source, from: startFrame, frames: Int64(numberFrames), at: scheduleTime(when),
                            completeWhen: completeWhen, completion: completion)
        } catch {
            AVAudioEngine.noteRefusal("scheduleSegment: \(error.message)")
            completion?()
        }
    }

    /// Schedules `buffer` once.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionHandler: completionHandler)
    }

    /// Schedules `buffer` (copied now) with `options` (loops, interrupts, interruptsAtLoop), at `when` as
    /// `scheduleFile`.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                               completionHandler: AVAudioNodeCompletionHandler? = nil) {
        schedule(buffer, at: when, options: options, completeWhen: .rendered, completion: completionHandler)
    }

    /// As `scheduleBuffer(_:at:options:completionHandler:)`, the handler called as
    /// `scheduleFile(_:at:completionCallbackType:completionHandler:)` says.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                               completionCallbackType: AVAudioPlayerNodeCompletionCallbackType,
                               completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        schedule(buffer, at: when, options: options, completeWhen: Self.moment(completionCallbackType),
                 completion: completionHandler.map { handler in { @Sendable in handler(completionCallbackType) } })
    }

    /// As `scheduleBuffer(_:completionHandler:)`, with a callback type.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionCallbackType: AVAudioPlayerNodeCompletionCallbackType,
                               completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionCallbackType: completionCallbackType, completionHandler: completionHandler)
    }

    private func schedule(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions,
                          completeWhen: GraphCompletion, completion: (@Sendable () -> Void)?) {
        let frames = Int(buffer.frameLength)
        let samples = (0..<Int(buffer.format.channelCount)).map { channel in
            (0..<frames).map { buffer.sample(channel: channel, frame: $0) }
        }
        player.schedule(samples: samples, sampleRate: Int(clampedInt64(min(buffer.format.sampleRate, 1e9))), at: scheduleTime(when),
                        options: GraphBufferOptions(rawValue: options.rawValue), completeWhen: completeWhen, completion: completion)
    }

    /// When a handler of `type` runs: played back is heard; consumed and rendered are rendered (what the
    /// engine has consumed it has rendered in the same pass).
    private static func moment(_ type: AVAudioPlayerNodeCompletionCallbackType) -> GraphCompletion {
        type == .dataPlayedBack ? .heard : .rendered
    }

    /// When `when` asks an item to begin: its sample time in the player's timeline; else its host time, on
    /// the engine's output timeline (from the stream's clock: a running engine only; otherwise refused
    /// with a line, and the item follows what is scheduled before it); nil: after what comes before.
    private func scheduleTime(_ when: AVAudioTime?) -> GraphScheduleTime? {
        guard let when else { return nil }
        if when.isSampleTimeValid { return .player(max(0, when.sampleTime)) }
        guard when.isHostTimeValid else { return nil }
        if let engine, let time = engine.graph.sampleTime(forHostTime: when.hostTime) { return .graph(time) }
        AVAudioEngine.noteRefusal("schedule at a host time: the engine is not running, so no moment can be placed; "
                                  + "start it first, or give a sample time")
        return nil
    }

    // MARK: Playing

    /// Plays what is scheduled (and what will be). Refused while the engine does not run (Apple's engine
    /// stops the program there): `OpenAVFAudioLastErrorMessage()` says so.
    public func play() {
        guard engine?.isRunning == true else {
            AVAudioEngine.noteRefusal("AVAudioPlayerNode.play(): the engine is not running; call engine.start() first")
            return
        }
        player.play()
    }

    /// Plays from `when`: its sample time in the engine's output timeline (`lastRenderTime`'s), to the
    /// frame (two nodes given the same time start together), or, without one, its host time (the moment
    /// the first frame is heard, from the stream's clock). Nil starts at once.
    public func play(at when: AVAudioTime?) {
        guard let engine, engine.isRunning else { return play() }
        var start: Int64?
        if let when, when.isSampleTimeValid {
            start = when.sampleTime
        } else if let when, when.isHostTimeValid {
            start = engine.graph.sampleTime(forHostTime: when.hostTime)
        }
        player.play(at: start)
    }

    /// Pauses where it is; `play()` goes on.
    public func pause() { player.pause() }

    /// Stops: everything scheduled is dropped (each item's completion handler runs) and the player time
    /// goes back to 0.
    public func stop() { player.stop() }

    /// Whether it plays.
    public var isPlaying: Bool { player.isPlaying }

    /// The player's time at `nodeTime` (a sample time of the engine's output timeline, `lastRenderTime`'s):
    /// frames of the player's own timeline (0 where it began playing, paused time not counted), at its
    /// output's rate; nil when not playing or without a sample time.
    public func playerTime(forNodeTime nodeTime: AVAudioTime) -> AVAudioTime? {
        guard nodeTime.isSampleTimeValid else { return nil }
        let rate = engine.map { Double($0.graph.sampleRate) } ?? 44_100
        if let time = player.playerTime(forGraphTime: nodeTime.sampleTime) { return AVAudioTime(sampleTime: time, atRate: rate) }
        // Playing, not yet rendered: its time so far (0).
        return player.isPlaying ? player.playerTime.map { AVAudioTime(sampleTime: $0, atRate: rate) } : nil
    }

    /// The node time (the engine's output timeline) of `playerTime`: where the player's frame of that
    /// time is rendered. Nil unless it plays and has rendered since `play()`.
    public func nodeTime(forPlayerTime playerTime: AVAudioTime) -> AVAudioTime? {
        guard playerTime.isSampleTimeValid, let time = player.graphTime(forPlayerTime: playerTime.sampleTime) else { return nil }
        return AVAudioTime(sampleTime: time, atRate: engine.map { Double($0.graph.sampleRate) } ?? 44_100)
    }
}
