// AVAudioNode: what every node of an engine has — its engine, its connections' formats, taps, the last
// time it rendered — and the render contract the engine drives (one render thread, under the engine's lock).
import Foundation
import Locking

public typealias AVAudioNodeTapBlock = (AVAudioPCMBuffer, AVAudioTime) -> Void
public typealias AVAudioNodeCompletionHandler = @Sendable () -> Void

/// A node's volume and pan where it enters a mixer (AVAudioPlayerNode, effects, the mixer itself).
public protocol AVAudioMixing: AnyObject {
    /// Gain into the mixer, 0…1.
    var volume: Float { get set }
    /// −1 (left) … 1 (right): a mono node's place between the mixer's two channels, a stereo node's balance.
    var pan: Float { get set }
}

extension AVAudioMixing where Self: AVAudioNode {
    /// The node's gain into a mixer, 0…1 (clamped; NaN ignored).
    public var volume: Float {
        get { withCoreLock { mixVolume } }
        set { if !newValue.isNaN { withCoreLock { mixVolume = min(1, max(0, newValue)) } } }
    }

    /// The node's place (mono) or balance (stereo) in a mixer, −1…1 (clamped; NaN ignored).
    public var pan: Float {
        get { withCoreLock { mixPan } }
        set { if !newValue.isNaN { withCoreLock { mixPan = min(1, max(-1, newValue)) } } }
    }
}

/// A node: attached to at most one engine; its state is guarded by the engine's lock (`EngineCore.lock`)
/// once attached, and by its own before.
open class AVAudioNode: NSObject, @unchecked Sendable {
    // @unchecked Sendable: every mutable field is read and written under the engine's lock (or, for a
    // node not attached, only by the thread that made it, as Apple's nodes are).
    weak var core: EngineCore?
    /// Frames the node has rendered (its output's sample time), and when its last render was.
    var renderedFrames: Int64 = 0
    var lastRenderHostTime: UInt64 = 0
    var taps: [Int: Tap] = [:]
    var mixVolume: Float = 1
    var mixPan: Float = 0

    struct Tap {
        var bufferSize: AVAudioFrameCount
        var block: AVAudioNodeTapBlock
    }

    public override init() { super.init() }

    /// The engine the node is attached to.
    public var engine: AVAudioEngine? { core?.engine }

    /// Input buses (0 for a source).
    open var numberOfInputs: Int { 1 }
    /// Output buses (0 for the output node).
    open var numberOfOutputs: Int { 1 }

    /// The format of the connection into `bus`, or the engine's if not connected.
    open func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        guard let core else { return EngineCore.defaultFormat }
        return core.lock.withLock { core.inputFormat(of: self, bus: bus) }
    }

    /// The format of what the node puts out on `bus`.
    open func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        guard let core else { return EngineCore.defaultFormat }
        return core.lock.withLock { core.outputFormat(of: self) }
    }

    /// When the node last rendered: the engine's sample time at its output rate and the host time then;
    /// nil before the engine has rendered.
    public var lastRenderTime: AVAudioTime? {
        guard let core else { return nil }
        return core.lock.withLock { () -> AVAudioTime? in
            guard core.renderedFrames > 0 else { return nil }
            return AVAudioTime(hostTime: core.lastRenderHostTime, sampleTime: core.renderedFrames, atRate: core.format.sampleRate)
        }
    }

    /// Calls `block` with each buffer of what the node puts out on `bus` (standard format, about
    /// `bufferSize` frames; the format argument must be nil or the node's output format), on the engine's
    /// render thread, after the buffer was rendered. A second tap on the same bus is refused, as Apple's
    /// engine refuses it (there by an exception): the first stays, and `OpenAVFAudioLastErrorMessage()` says so.
    open func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?,
                         block tapBlock: @escaping AVAudioNodeTapBlock) {
        let install = { [self] in
            guard taps[bus] == nil else {
                EngineCore.noteRefusal("a tap is already installed on bus \(bus) of \(type(of: self)); remove it first")
                return
            }
            taps[bus] = Tap(bufferSize: max(1, min(bufferSize, 1 << 20)), block: tapBlock)
        }
        if let core { core.lock.withLock(install) } else { install() }
        core?.tapsChanged()
    }

    /// Removes the tap on `bus`, if any.
    open func removeTap(onBus bus: AVAudioNodeBus) {
        if let core { core.lock.withLock { taps[bus] = nil } } else { taps[bus] = nil }
        core?.tapsChanged()
    }

    /// Clears what the node holds (a player's schedule, an effect's tail).
    open func reset() {}

    // MARK: Rendering (the engine's render thread, under its lock)

    /// Renders `frames` frames of the node's output into `output` (one array per channel, `frames` long).
    func render(_ frames: Int, into output: inout [[Float]], context: RenderContext) {
        for channel in output.indices { output[channel].withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
    }

    /// Channels the node puts out.
    var outputChannelCount: Int { 2 }
}

/// What a render pass collects to do once the engine's lock is released: completion handlers and taps.
final class RenderContext {
    var deferred: [() -> Void] = []
    let hostTime: UInt64
    init(hostTime: UInt64) { self.hostTime = hostTime }
}
