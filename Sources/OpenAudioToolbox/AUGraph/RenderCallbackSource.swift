// A render callback on an AUGraph node's input (AUGraphSetNodeInputCallback, or the render callback
// property of a unit in a graph): a source in the playback graph whose frames the program's C callback
// renders, in the stream format of the input it feeds, at the graph's rate.
import Foundation
import RecorderKit

final class RenderCallbackSource: @unchecked Sendable {
    // @unchecked Sendable: `list`, `scratch` and `failed` are used only by the render pass (one at a time,
    // under the graph's lock); the rest is fixed. `owner` is read there too, under the same lock.
    let callback: AURenderCallbackStruct
    let bus: Int
    let nodeID: AUNode
    weak var owner: AUGraphObject?
    /// The playback graph's node this callback renders through.
    private(set) var node: GraphRenderSource!
    private var list: UnsafeMutableAudioBufferListPointer?
    /// The buffers `list` has room for (kept here: a callback may change the list's own count).
    private var listCapacity = 0
    private var scratch: [UnsafeMutableRawPointer] = []
    private var scratchBytes = 0

    init(callback: AURenderCallbackStruct, bus: Int, owner: AUGraphObject, node: AUNode) {
        self.callback = callback
        self.bus = bus
        self.owner = owner
        nodeID = node
        let format = owner.callbackFormat(node: node, bus: bus)
        let channels = Int(min(16, max(1, format.mChannelsPerFrame)))
        self.node = GraphRenderSource(channels: { [weak self] in self?.channels ?? channels }) { [weak self] request in
            self?.render(request) ?? false
        }
    }

    deinit {
        if let list { free(list.unsafeMutablePointer) }
        scratch.forEach { $0.deallocate() }
    }

    private var format: AudioStreamBasicDescription? { owner?.callbackFormat(node: nodeID, bus: bus) }
    private var channels: Int { Int(min(16, max(1, format?.mChannelsPerFrame ?? 2))) }

    /// One pass: the callback fills the input's format, straight into the pass's buffer when that is the
    /// canonical float layout, else into scratch buffers read back as floats (grown, never shrunk: no
    /// allocation once the largest pass has been seen). A status other than noErr is silence.
    private func render(_ request: GraphRenderSource.Request) -> Bool {
        guard let format, let codec = SampleCodec(format), let proc = callback.inputProc else { return false }
        let channels = min(16, codec.channels)
        if list == nil || listCapacity < codec.bufferCount {
            if let list { free(list.unsafeMutablePointer) }
            list = AudioBufferList.allocate(maximumBuffers: codec.bufferCount)
            listCapacity = list!.count
            guard listCapacity >= codec.bufferCount else { return false }
        }
        let list = list!
        list.count = codec.bufferCount
        let direct = codec.isFloat && codec.bytes == 4 && !codec.interleaved && !codec.bigEndian
        if direct {
            for channel in 0..<codec.bufferCount {
                let samples = request.buffer.channel(min(channel, channels - 1))
                list[channel] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(request.frames * 4), mData: UnsafeMutableRawPointer(samples.baseAddress))
            }
        } else {
            let bytes = request.frames * codec.bufferStride
            if scratch.count < codec.bufferCount || scratchBytes < bytes {
                scratch.forEach { $0.deallocate() }
                scratchBytes = max(bytes, scratchBytes)
                scratch = (0..<codec.bufferCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: scratchBytes, alignment: 16) }
            }
            for index in 0..<codec.bufferCount {
                memset(scratch[index], 0, bytes)
                list[index] = AudioBuffer(mNumberChannels: UInt32(codec.interleaved ? codec.channels : 1), mDataByteSize: UInt32(bytes),
                                          mData: scratch[index])
            }
        }
        var flags = AudioUnitRenderActionFlags()
        var time = AudioTimeStamp()
        time.mSampleTime = Double(request.sampleTime)
        time.mHostTime = request.hostTime
        time.mRateScalar = 1
        time.mFlags = [.sampleTimeValid, .hostTimeValid, .rateScalarValid]
        // A program that gave no reference gets this object's address (never dereferenced by it).
        let status = proc(callback.inputProcRefCon ?? Unmanaged.passUnretained(self).toOpaque(), &flags, &time, UInt32(bus), UInt32(request.frames), list.unsafeMutablePointer)
        guard status == noErr else { return false }
        list.count = codec.bufferCount
        if direct {
            // A callback may point the buffers at its own samples, as Apple's allows: those are copied in.
            for channel in 0..<min(codec.bufferCount, channels) {
                let samples = request.buffer.channel(channel)
                guard let given = list[channel].mData else { return false }
                if given != UnsafeMutableRawPointer(samples.baseAddress) {
                    guard Int(list[channel].mDataByteSize) >= request.frames * 4 else { return false }
                    samples.baseAddress!.update(from: given.assumingMemoryBound(to: Float.self), count: request.frames)
                }
            }
        } else {
            guard codec.fits(list, frames: request.frames) else { return false }
            for channel in 0..<channels {
                let samples = request.buffer.channel(channel)
                for frame in 0..<request.frames { samples[frame] = codec.read(list, frame: frame, channel: channel) }
            }
        }
        return true
    }
}
