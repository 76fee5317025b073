// AVAudioPlayerNode: plays what is scheduled on it — files, segments of files, buffers (once or looped) — in
// order, into the engine; each item's completion handler runs when it has been rendered, or when the node
// is stopped.
import Foundation
import Locking

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

open class AVAudioPlayerNode: AVAudioNode, AVAudioMixing, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode.
    private enum Source {
        case file(AVAudioFile, next: AVAudioFramePosition, end: AVAudioFramePosition)
        case buffer(AVAudioPCMBuffer, next: Int, loops: Bool)
    }

    private struct Item {
        var source: Source
        var handler: (@Sendable () -> Void)?
        /// The player time (frames since `play()`) the item is to begin at; nil: after what comes before.
        var startAt: AVAudioFramePosition?
    }

    private var items: [Item] = []
    private var playing = false
    /// The engine's sample time `play(at:)` asked to start at (nil: at once).
    private var startAt: AVAudioFramePosition?
    /// Frames this node played since `play()` after a stop (its player time).
    private var playerFrames: AVAudioFramePosition = 0
    private var channels = 2

    public override init() { super.init() }

    open override var numberOfInputs: Int { 0 }
    override var outputChannelCount: Int { channels }

    // MARK: Scheduling

    /// Schedules the whole of `file`, from `when`'s sample time in the player's timeline (frames since
    /// `play()`; silence until then), or nil: after what is scheduled before it.
    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: file.length), at: when,
                        completionHandler: completionHandler)
    }

    /// As `scheduleFile(_:at:completionHandler:)`, its handler told which moment it is called at (always
    /// `.dataRendered` here, whatever was asked: rendered is as far as the engine can tell).
    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionCallbackType: AVAudioPlayerNodeCompletionCallbackType,
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        let rendered: AVAudioNodeCompletionHandler? = completionHandler.map { handler in { @Sendable in handler(.dataRendered) } }
        scheduleFile(file, at: when, completionHandler: rendered)
    }

    /// Schedules `numberFrames` frames of `file` from `startFrame` (clamped to the file), at `when` as
    /// `scheduleFile`.
    public func scheduleSegment(_ file: AVAudioFile, startingFrame startFrame: AVAudioFramePosition, frameCount numberFrames: AVAudioFrameCount,
                                at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        let start = max(0, min(startFrame, file.length))
        let end = min(file.length, start + AVAudioFramePosition(numberFrames))
        withCoreLock {
            channels = Int(file.processingFormat.channelCount)
            items.append(Item(source: .file(file, next: start, end: end), handler: completionHandler, startAt: Self.playerTime(when)))
        }
    }

    /// Schedules `buffer` once.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionHandler: completionHandler)
    }

    /// Schedules `buffer` with `options` (loops, interrupts, interruptsAtLoop), at `when` as `scheduleFile`.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                               completionHandler: AVAudioNodeCompletionHandler? = nil) {
        var interrupted: [@Sendable () -> Void] = []
        withCoreLock {
            channels = Int(buffer.format.channelCount)
            if options.contains(.interrupts) {
                interrupted = items.compactMap(\.handler)
                items.removeAll()
            } else if options.contains(.interruptsAtLoop), let last = items.indices.last,
                      case .buffer(let looped, let next, true) = items[last].source {
                items[last].source = .buffer(looped, next: next, loops: false)
            }
            items.append(Item(source: .buffer(buffer, next: 0, loops: options.contains(.loops)), handler: completionHandler,
                              startAt: Self.playerTime(when)))
        }
        interrupted.forEach { $0() }
    }

    /// `when`'s sample time, if it has one.
    private static func playerTime(_ when: AVAudioTime?) -> AVAudioFramePosition? {
        guard let when, when.isSampleTimeValid else { return nil }
        return max(0, when.sampleTime)
    }

    // MARK: Playing

    /// Plays what is scheduled (and what will be). Refused while the engine does not run (Apple's engine
    /// stops the program there): `OpenAVFAudioLastErrorMessage()` says so.
    public func play() {
        guard engine?.isRunning == true else {
            EngineCore.noteRefusal("AVAudioPlayerNode.play(): the engine is not running; call engine.start() first")
            return
        }
        withCoreLock {
            playing = true
            startAt = nil
        }
    }

    /// Plays from `when`'s sample time in the engine's output timeline (`lastRenderTime`'s), to the frame:
    /// two nodes given the same time start together. A time without a sample time, or nil, starts at once.
    public func play(at when: AVAudioTime?) {
        play()
        guard let when, when.isSampleTimeValid, isPlaying else { return }
        withCoreLock { startAt = when.sampleTime }
    }

    /// Pauses where it is; `play()` goes on.
    public func pause() { withCoreLock { playing = false } }

    /// Stops: everything scheduled is dropped (each item's completion handler runs) and the player time
    /// goes back to 0.
    public func stop() {
        let handlers = withCoreLock { () -> [@Sendable () -> Void] in
            playing = false
            playerFrames = 0
            defer { items.removeAll() }
            return items.compactMap(\.handler)
        }
        handlers.forEach { $0() }
    }

    open override func reset() { stop() }

    /// Whether it plays.
    public var isPlaying: Bool { withCoreLock { playing } }

    /// The player's time at `nodeTime`: the frames it has played since `play()` (after its last stop), at
    /// its output's rate; nil when not playing or without a sample time.
    public func playerTime(forNodeTime nodeTime: AVAudioTime) -> AVAudioTime? {
        guard nodeTime.isSampleTimeValid else { return nil }
        return withCoreLock { () -> AVAudioTime? in
            guard playing || playerFrames > 0 else { return nil }
            let rate = core.map { $0.outputFormat(of: self).sampleRate } ?? 44_100
            return AVAudioTime(sampleTime: playerFrames, atRate: rate)
        }
    }

    // MARK: Rendering

    override func render(_ frames: Int, into output: inout [[Float]], context: RenderContext) {
        super.render(frames, into: &output, context: context)
        guard playing else { return }
        var written = 0
        if let startAt, let now = core?.renderedFrames {
            guard startAt < now + Int64(frames) else { return }  // not yet
            written = Int(max(0, startAt - now))
            self.startAt = nil
        }
        let silentLead = written
        while written < frames, let item = items.first {
            if let startAt = item.startAt {
                // Silence until the item's time, in the player's timeline.
                let now = playerFrames + AVAudioFramePosition(written - silentLead)
                if startAt > now {
                    written += Int(min(AVAudioFramePosition(frames - written), startAt - now))
                    continue
                }
                items[0].startAt = nil
            }
            switch item.source {
            case .file(let file, let next, let end):
                let wanted = min(frames - written, Int(end - next))
                var got = 0
                if wanted > 0, let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(wanted)) {
                    file.framePosition = next
                    try? file.read(into: buffer, frameCount: AVAudioFrameCount(wanted))
                    got = Int(buffer.frameLength)
                    copy(buffer, from: 0, count: got, into: &output, at: written)
                }
                written += got
                if got == 0 || next + AVAudioFramePosition(got) >= end {
                    finishFirst(context)
                } else {
                    items[0].source = .file(file, next: next + AVAudioFramePosition(got), end: end)
                }
            case .buffer(let buffer, let next, let loops):
                let length = Int(buffer.frameLength)
                let count = min(frames - written, length - next)
                if count > 0 { copy(buffer, from: next, count: count, into: &output, at: written) }
                written += max(0, count)
                if next + max(0, count) >= length {
                    if loops && length > 0 { items[0].source = .buffer(buffer, next: 0, loops: true) } else { finishFirst(context) }
                } else {
                    items[0].source = .buffer(buffer, next: next + count, loops: loops)
                }
            }
        }
        playerFrames += AVAudioFramePosition(frames - silentLead)
    }

    private func finishFirst(_ context: RenderContext) {
        let item = items.removeFirst()
        if let handler = item.handler { context.deferred.append(handler) }
    }

    private func copy(_ buffer: AVAudioPCMBuffer, from start: Int, count: Int, into output: inout [[Float]], at offset: Int) {
        for channel in output.indices {
            let source = min(channel, Int(buffer.format.channelCount) - 1)
            for frame in 0..<count { output[channel][offset + frame] = buffer.sample(channel: source, frame: start + frame) }
        }
    }
}
