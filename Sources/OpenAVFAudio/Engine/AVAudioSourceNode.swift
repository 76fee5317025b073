// The nodes that call the program: AVAudioSourceNode (a render block fills a buffer list each render pass)
// and AVAudioSinkNode (a receiver block gets the input node's capture), over RecorderKit's
// GraphRenderSource and GraphReceiver.
import Foundation
import Locking
import OpenAudioToolbox
import RecorderKit

/// Fills `outputData` with `frameCount` frames of the node's format; sets `isSilence` when it rendered
/// silence; returns `noErr`, or a status that makes the pass hear silence from the node.
public typealias AVAudioSourceNodeRenderBlock = (_ isSilence: UnsafeMutablePointer<ObjCBool>, _ timestamp: UnsafePointer<AudioTimeStamp>,
                                                 _ frameCount: AVAudioFrameCount, _ outputData: UnsafeMutablePointer<AudioBufferList>) -> OSStatus

/// Receives `frameCount` frames of what the input node captured, in its format.
public typealias AVAudioSinkNodeReceiverBlock = (_ timestamp: UnsafePointer<AudioTimeStamp>, _ frameCount: AVAudioFrameCount,
                                                 _ inputData: UnsafePointer<AudioBufferList>) -> OSStatus

/// A source whose audio the render block supplies, each render pass, on the engine's render thread.
/// With `init(format:renderBlock:)` the block renders that format (any linear PCM, any rate: converted
/// and resampled to the engine's); with `init(renderBlock:)` it renders the format of the node's
/// connection (`connect(_:to:format:)`'s).
open class AVAudioSourceNode: AVAudioNode, AVAudioMixing, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode; `renderer` is used only by the render pass (one at a time).
    private let renderer: SourceRenderer

    /// A source node rendering the format of its connection.
    public convenience init(renderBlock block: @escaping AVAudioSourceNodeRenderBlock) {
        self.init(fixedFormat: nil, block: block)
    }

    /// A source node rendering `format`.
    public convenience init(format: AVAudioFormat, renderBlock block: @escaping AVAudioSourceNodeRenderBlock) {
        self.init(fixedFormat: format, block: block)
    }

    private init(fixedFormat: AVAudioFormat?, block: @escaping AVAudioSourceNodeRenderBlock) {
        let renderer = SourceRenderer(fixedFormat: fixedFormat, block: block)
        self.renderer = renderer
        super.init(graphNode: GraphRenderSource(channels: { renderer.channelCount }, render: { renderer.render($0) }))
        renderer.node = WeakCarrier(self)
    }

    /// The node puts out its connection's format (or its own, before it is connected).
    open override func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        links.withLock { $0.outputFormat } ?? renderer.fixedFormat ?? super.outputFormat(forBus: bus)
    }

    open override var numberOfInputs: Int { 0 }
}

/// Calls a source node's block: into the graph's buffer directly when the block's format is the graph's
/// (float32, deinterleaved, its rate), else into a buffer of the block's format converted by an
/// AVAudioConverter (sample type, channels, rate).
private final class SourceRenderer: @unchecked Sendable {
    // @unchecked Sendable: `node` is set once before the graph can render the node; the rest is used by
    // one render pass at a time (the graph's lock), as Apple calls a render block from one thread.
    let fixedFormat: AVAudioFormat?
    let block: AVAudioSourceNodeRenderBlock
    var node = WeakCarrier<AVAudioSourceNode>?.none
    private var list: UnsafeMutableAudioBufferListPointer?
    private var converter: AVAudioConverter?
    private var staging: AVAudioPCMBuffer?
    private var converted: AVAudioPCMBuffer?
    private var failed = false

    init(fixedFormat: AVAudioFormat?, block: @escaping AVAudioSourceNodeRenderBlock) {
        self.fixedFormat = fixedFormat
        self.block = block
    }

    deinit { if let list { free(list.unsafeMutablePointer) } }

    /// The format the block renders: its own, else the connection's, else the engine's.
    var blockFormat: AVAudioFormat {
        fixedFormat ?? node?.object?.links.withLock({ $0.outputFormat }) ?? node?.object?.engine?.outputFormat ?? AVAudioEngine.defaultFormat
    }

    var channelCount: Int { Int(blockFormat.channelCount) }

    func render(_ request: GraphRenderSource.Request) -> Bool {
        let format = blockFormat
        var time = AudioTimeStamp()
        time.mSampleTime = Double(request.sampleTime)
        time.mHostTime = request.hostTime
        time.mRateScalar = 1
        time.mFlags = [.sampleTimeValid, .hostTimeValid, .rateScalarValid]
        if format.isStandard, Int(format.sampleRate.rounded()) == request.sampleRate {
            // The graph's own layout: the block writes straight into the pass's buffer.
            let channels = Int(format.channelCount)
            if list == nil || list!.count < channels {
                if let list { free(list.unsafeMutablePointer) }
                list = AudioBufferList.allocate(maximumBuffers: channels)
            }
            let list = list!
            list.count = channels
            for channel in 0..<channels {
                let samples = request.buffer.channel(channel)
                list[channel] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(request.frames * 4),
                                            mData: UnsafeMutableRawPointer(samples.baseAddress))
            }
            return call(&time, frames: request.frames, list.unsafeMutablePointer)
        }
        return renderConverted(request, format: format, time: &time)
    }

    /// The block's status: noErr renders; any other status, or a list the block emptied, is silence.
    private func call(_ time: inout AudioTimeStamp, frames: Int, _ list: UnsafeMutablePointer<AudioBufferList>) -> Bool {
        var isSilence = ObjCBool(false)
        let status = block(&isSilence, &time, AVAudioFrameCount(frames), list)
        if status != noErr, !failed {
            failed = true
            AVAudioEngine.noteRefusal("a source node's render block returned status \(status): the node is heard as silence while it does")
        }
        if status == noErr { failed = false }
        return status == noErr
    }

    /// Renders the block's format through a converter into the graph's standard format at its rate.
    private func renderConverted(_ request: GraphRenderSource.Request, format: AVAudioFormat, time: inout AudioTimeStamp) -> Bool {
        let target = AVAudioFormat(standardFormatWithSampleRate: Double(request.sampleRate), channels: format.channelCount)!
        if converter?.inputFormat != format || converter?.outputFormat != target {
            converter = AVAudioConverter(from: format, to: target)
            converted = nil
            staging = nil
        }
        guard let converter else { return false }
        if (converted?.frameCapacity ?? 0) < AVAudioFrameCount(request.frames) {
            converted = AVAudioPCMBuffer(pcmFormat: target, frameCapacity: AVAudioFrameCount(request.frames))
        }
        guard let converted else { return false }
        var ok = true
        var rendered = Int64(time.mSampleTime)
        var error: NSError?
        _ = converter.convert(to: converted, error: &error) { count, status in
            let frames = max(1, Int(count))
            if (self.staging?.frameCapacity ?? 0) < AVAudioFrameCount(frames) {
                self.staging = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))
            }
            guard let staging = self.staging else {
                status.pointee = .noDataNow
                return nil
            }
            staging.frameLength = AVAudioFrameCount(frames)
            var blockTime = time
            blockTime.mSampleTime = Double(rendered)
            if !self.call(&blockTime, frames: frames, staging.mutableAudioBufferList) {
                ok = false
                status.pointee = .noDataNow
                return nil
            }
            rendered += Int64(frames)
            status.pointee = .haveData
            return staging
        }
        guard ok else { return false }
        for channel in 0..<Int(target.channelCount) {
            let to = request.buffer.channel(channel)
            for frame in 0..<Int(converted.frameLength) { to[frame] = converted.floatChannelData![channel][frame] }
        }
        return true
    }
}

/// Receives what the input node captures, whole, as it is captured (on the capture's thread): connect the
/// engine's input node to it. It puts nothing out. Connected from any other node it receives nothing,
/// as Apple's sink node takes only the input node.
open class AVAudioSinkNode: AVAudioNode, @unchecked Sendable {
    // @unchecked Sendable: as AVAudioNode; the receiver is called from one capture thread.

    /// A sink node calling `block` with each captured buffer (the input node's format: float32, deinterleaved).
    public init(receiverBlock block: @escaping AVAudioSinkNodeReceiverBlock) {
        let receiver = SinkReceiver(block: block)
        super.init(graphNode: GraphReceiver { receiver.receive($0) })
    }

    open override var numberOfOutputs: Int { 0 }
}

/// Hands a captured buffer to a sink node's block through a buffer list over the capture's samples.
private final class SinkReceiver: @unchecked Sendable {
    // @unchecked Sendable: the block is called from the one capture thread of the input connected.
    let block: AVAudioSinkNodeReceiverBlock
    private var failed = false

    init(block: @escaping AVAudioSinkNodeReceiverBlock) { self.block = block }

    func receive(_ captured: GraphTapBuffer) {
        var channels = captured.channels
        let frames = captured.frameCount
        guard frames > 0 else { return }
        let list = AudioBufferList.allocate(maximumBuffers: channels.count)
        defer { free(list.unsafeMutablePointer) }
        var time = AudioTimeStamp()
        time.mSampleTime = Double(captured.sampleTime)
        time.mHostTime = captured.hostTime
        time.mRateScalar = 1
        time.mFlags = [.sampleTimeValid, .hostTimeValid, .rateScalarValid]
        let status = channels.withUnsafeMutableBufferPointer { channels -> OSStatus in
            func fill(_ index: Int) -> OSStatus {
                guard index < channels.count else { return block(&time, AVAudioFrameCount(frames), list.unsafePointer) }
                return channels[index].withUnsafeMutableBufferPointer { samples in
                    list[index] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(frames * 4), mData: UnsafeMutableRawPointer(samples.baseAddress))
                    return fill(index + 1)
                }
            }
            return fill(0)
        }
        if status != noErr, !failed { AVAudioEngine.noteRefusal("a sink node's receiver block returned status \(status)") }
        failed = status != noErr
    }
}
