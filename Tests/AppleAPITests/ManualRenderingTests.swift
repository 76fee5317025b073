// AVAudioEngine's manual rendering without a server: player nodes, a time-pitch unit and source nodes
// rendered offline, exactly what they hold (sums, means, sample types), the render block's buffer lists,
// source nodes' render blocks (their formats converted, their failures heard as silence), and the calls
// refused with Apple's codes.
import Foundation
import Locking
import OpenAVFAudio
import Testing
import TestSupport

/// A standard mono buffer of `samples` (each a multiple of 1/32 768, so sums are exact).
private func monoBuffer(_ samples: [Int16], rate: Double = 44_100) throws -> AVAudioPCMBuffer {
    let format = try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 1))
    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(samples.count)))
    for (index, sample) in samples.enumerated() { buffer.floatChannelData![0][index] = Float(sample) / 32_768 }
    buffer.frameLength = AVAudioFrameCount(samples.count)
    return buffer
}

/// Renders `frames` frames of `engine` in blocks of `block`, the left channel (or the only one) as floats.
private func renderAll(_ engine: AVAudioEngine, frames: Int, block: Int = 4_096) throws -> (left: [Float], right: [Float]) {
    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: AVAudioFrameCount(block)))
    var left: [Float] = [], right: [Float] = []
    while left.count < frames {
        let status = try engine.renderOffline(AVAudioFrameCount(min(block, frames - left.count)), to: buffer)
        #expect(status == .success)
        let channels = buffer.floatChannelData!
        left += UnsafeBufferPointer(start: channels[0], count: Int(buffer.frameLength))
        if buffer.format.channelCount > 1 { right += UnsafeBufferPointer(start: channels[1], count: Int(buffer.frameLength)) }
    }
    return (left, right)
}

struct ManualRenderingTests {
    /// Two player nodes of noise and a tone, the second through a time-pitch unit at rate 1 (its input
    /// passes), rendered offline in blocks of 1 000: both channels hold their sum exactly; the sample
    /// time counts what was rendered; both completion handlers ran, in the render calls.
    @Test func twoPlayersRenderAsTheirSum() throws {
        let frames = 44_100
        let noise = noiseSamples(count: frames, seed: 5).map { $0 / 4 }
        let tone = sineSamples(frames: frames, frequency: 440, amplitudes: [0.25])
        let engine = AVAudioEngine()
        let a = AVAudioPlayerNode(), b = AVAudioPlayerNode(), timePitch = AVAudioUnitTimePitch()
        [a, b, timePitch].forEach(engine.attach)
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
        engine.connect(a, to: engine.mainMixerNode, format: mono)
        engine.connect(b, to: timePitch, format: mono)
        engine.connect(timePitch, to: engine.mainMixerNode, format: mono)
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 1_000)
        #expect(engine.isInManualRenderingMode && engine.manualRenderingMode == .offline && engine.manualRenderingMaximumFrameCount == 1_000)
        try engine.start()
        let completed = Locked(0)
        a.scheduleBuffer(try monoBuffer(noise)) { completed.withLock { $0 += 1 } }
        b.scheduleBuffer(try monoBuffer(tone)) { completed.withLock { $0 += 1 } }
        a.play()
        b.play()
        let (left, right) = try renderAll(engine, frames: frames + 2_000, block: 1_000)
        let sum = (0..<frames).map { Float(Int(noise[$0]) + Int(tone[$0])) / 32_768 }
        #expect(Array(left.prefix(frames)) == sum && Array(right.prefix(frames)) == sum)
        #expect(left.dropFirst(frames).allSatisfy { $0 == 0 })
        #expect(engine.manualRenderingSampleTime == AVAudioFramePosition(frames + 2_000))
        #expect(completed.withLock { $0 } == 2)
        engine.stop()
        #expect(!engine.isRunning)
    }

    /// A mono int16 rendering format holds the mean of the mix's channels, rounded to 16 bits: a mono
    /// player panned hard left is heard at half level.
    @Test func aMonoIntegerFormatHoldsTheMean() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        let monoFloat = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        engine.connect(player, to: engine.mainMixerNode, format: monoFloat)
        player.pan = -1
        let format = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 1, interleaved: true))
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 512)
        try engine.start()
        let samples: [Int16] = (0..<512).map { Int16($0 * 64 - 16_384) }
        player.scheduleBuffer(try monoBuffer(samples, rate: 48_000))
        player.play()
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512))
        #expect(try engine.renderOffline(512, to: buffer) == .success)
        let rendered = Array(UnsafeBufferPointer(start: buffer.int16ChannelData![0], count: 512))
        #expect(rendered == samples.map { Int16((Double($0) / 2).rounded()) })
    }

    /// A source node's block fills the graph's buffers directly (standard format at the engine's rate):
    /// its sine is rendered exactly, its time stamps count its frames; a source node of 16-bit interleaved
    /// stereo at half the rate is converted and resampled (a 1 kHz sine stays 1 kHz); a block returning an
    /// error is heard as silence and the reason is told.
    @Test func sourceNodesRenderTheirBlocks() throws {
        let engine = AVAudioEngine()
        let stamps = Locked<[Double]>([])
        let direct = AVAudioSourceNode { _, timestamp, frameCount, data in
            stamps.withLock { $0.append(timestamp.pointee.mSampleTime) }
            let start = Int(timestamp.pointee.mSampleTime)
            for buffer in UnsafeMutableAudioBufferListPointer(data) {
                let samples = UnsafeMutableBufferPointer<Float>(buffer)
                for frame in 0..<Int(frameCount) { samples[frame] = Float((start + frame) % 100) / 128 }
            }
            return noErr
        }
        engine.attach(direct)
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        engine.connect(direct, to: engine.mainMixerNode, format: stereo)
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 1_024)
        try engine.start()
        let (left, right) = try renderAll(engine, frames: 3_000, block: 1_000)
        let expected = (0..<3_000).map { Float($0 % 100) / 128 }
        #expect(left == expected && right == expected)
        #expect(stamps.withLock { $0 } == [0, 1_000, 2_000])
        engine.stop()

        let other = AVAudioEngine()
        let half = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 22_050, channels: 2, interleaved: true))
        let phase = Locked(0)
        let converted = AVAudioSourceNode(format: half) { _, _, frameCount, data in
            let samples = UnsafeMutableBufferPointer<Int16>(UnsafeMutableAudioBufferListPointer(data)[0])
            phase.withLock { start in
                for frame in 0..<Int(frameCount) {
                    let value = Int16((8_192 * sin(2 * Double.pi * 1_000 * Double(start + frame) / 22_050)).rounded())
                    samples[2 * frame] = value
                    samples[2 * frame + 1] = value
                }
                start += Int(frameCount)
            }
            return noErr
        }
        other.attach(converted)
        other.connect(converted, to: other.mainMixerNode, format: half)
        try other.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 4_410)
        try other.start()
        let heard = try renderAll(other, frames: 44_100, block: 4_410).left
        var crossings: [Double] = []
        for n in 4_410..<44_100 where heard[n - 1] < 0 && heard[n] >= 0 {
            crossings.append(Double(n - 1) + Double(-heard[n - 1] / (heard[n] - heard[n - 1])))
        }
        let hz = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / 44_100)
        #expect(abs(hz - 1_000) < 0.5, "\(hz) Hz")
        #expect(abs((heard[4_410...].max() ?? 0) - 0.25) < 0.01, "8 192 / 32 768")
        other.stop()

        let failing = AVAudioEngine()
        let broken = AVAudioSourceNode { _, _, frameCount, data in
            for buffer in UnsafeMutableAudioBufferListPointer(data) {
                let samples = UnsafeMutableBufferPointer<Float>(buffer)
                for frame in 0..<Int(frameCount) { samples[frame] = 0.5 }
            }
            return kAudioUnitErr_NoConnection
        }
        failing.attach(broken)
        failing.connect(broken, to: failing.mainMixerNode, format: stereo)
        try failing.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 256)
        try failing.start()
        #expect(try renderAll(failing, frames: 256, block: 256).left.allSatisfy { $0 == 0 })
        #expect(OpenAVFAudioLastErrorMessage()?.contains("status \(kAudioUnitErr_NoConnection)") == true)
    }

    /// The realtime block renders into the caller's list; a list with too few buffers, or buffers too
    /// small, is an `.error` with kAudio_ParamError, never a write past them.
    @Test func theRenderBlockFillsTheCallersList() throws {
        let engine = AVAudioEngine()
        let source = AVAudioSourceNode { _, _, frameCount, data in
            for buffer in UnsafeMutableAudioBufferListPointer(data) {
                let samples = UnsafeMutableBufferPointer<Float>(buffer)
                for frame in 0..<Int(frameCount) { samples[frame] = 0.25 }
            }
            return noErr
        }
        engine.attach(source)
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        engine.connect(source, to: engine.mainMixerNode, format: stereo)
        try engine.enableManualRenderingMode(.realtime, format: stereo, maximumFrameCount: 256)
        try engine.start()
        let render = engine.manualRenderingBlock
        let memory = UnsafeMutableBufferPointer<Float>.allocate(capacity: 512)
        defer { memory.deallocate() }
        memory.initialize(repeating: -1)
        let list = AudioBufferList.allocate(maximumBuffers: 2)
        defer { free(list.unsafeMutablePointer) }
        list[0] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: memory[0..<256]), numberOfChannels: 1)
        list[1] = AudioBuffer(UnsafeMutableBufferPointer(rebasing: memory[256...]), numberOfChannels: 1)
        var status: OSStatus = noErr
        #expect(render(128, list.unsafeMutablePointer, &status) == .success && status == noErr)
        #expect(memory[0..<128].allSatisfy { $0 == 0.25 } && memory[128..<256].allSatisfy { $0 == -1 })
        #expect(memory[256..<384].allSatisfy { $0 == 0.25 } && list[0].mDataByteSize == 512)

        list.count = 1
        #expect(render(128, list.unsafeMutablePointer, &status) == .error && status == kAudio_ParamError)
        list.count = 2
        list[1].mDataByteSize = 100
        #expect(render(128, list.unsafeMutablePointer, &status) == .error && status == kAudio_ParamError)
        #expect(render(257, list.unsafeMutablePointer, &status) == .error && status == kAudioUnitErr_TooManyFramesToProcess)
        #expect(throws: NSError.self) { try engine.renderOffline(128, to: AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 128)!) }
    }

    /// What manual rendering refuses: a running engine, a format it cannot render, frame counts past the
    /// maximum or the buffer, a buffer of another format, rendering before start; each an NSError with
    /// Apple's code and one line.
    @Test func refusalsCarryApplesCodes() throws {
        let engine = AVAudioEngine()
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 64))
        func code(_ body: () throws -> Any) -> Int? {
            do { _ = try body(); return nil } catch { return (error as NSError).code }
        }
        #expect(code { try engine.renderOffline(64, to: buffer) } == AVAudioEngineManualRenderingError.invalidMode.rawValue)
        let eight = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 8))
        #expect(code { try engine.enableManualRenderingMode(.offline, format: eight, maximumFrameCount: 64) } == Int(kAudioUnitErr_FormatNotSupported))
        #expect(code { try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 0) } == Int(kAudioUnitErr_InvalidPropertyValue))
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 32)
        #expect(code { try engine.renderOffline(16, to: buffer) } == AVAudioEngineManualRenderingError.notRunning.rawValue)
        try engine.start()
        #expect(code { try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 64) } == AVAudioEngineManualRenderingError.initialized.rawValue)
        #expect(code { try engine.renderOffline(33, to: buffer) } == Int(kAudioUnitErr_TooManyFramesToProcess))
        #expect(code { try engine.renderOffline(0, to: buffer) } == Int(kAudioUnitErr_TooManyFramesToProcess))
        let monoFormat = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
        let mono = try #require(AVAudioPCMBuffer(pcmFormat: monoFormat, frameCapacity: 64))
        #expect(code { try engine.renderOffline(16, to: mono) } == Int(kAudioUnitErr_FormatNotSupported))
        #expect(try engine.renderOffline(32, to: buffer) == .success && buffer.frameLength == 32)
        engine.disableManualRenderingMode()
        #expect(!engine.isInManualRenderingMode && !engine.isRunning && engine.manualRenderingMaximumFrameCount == 0)
    }
    /// A player started at node time 1 000: player time t is node time 1 000 + t and back; paused for a
    /// render of 500 frames, its timeline moves on by those 500; stopped, neither converts.
    @Test func playerAndNodeTimesConvert() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
        engine.connect(player, to: engine.mainMixerNode, format: mono)
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 4_096)
        try engine.start()
        player.scheduleBuffer(try monoBuffer([Int16](repeating: 100, count: 44_100)))
        player.play(at: AVAudioTime(sampleTime: 1_000, atRate: 44_100))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 4_096))
        #expect(try engine.renderOffline(2_000, to: buffer) == .success)
        #expect(player.playerTime(forNodeTime: AVAudioTime(sampleTime: 1_800, atRate: 44_100))?.sampleTime == 800)
        #expect(player.nodeTime(forPlayerTime: AVAudioTime(sampleTime: 500, atRate: 44_100))?.sampleTime == 1_500)
        player.pause()
        #expect(player.nodeTime(forPlayerTime: AVAudioTime(sampleTime: 500, atRate: 44_100)) == nil, "paused: no conversion")
        #expect(try engine.renderOffline(500, to: buffer) == .success)
        player.play()
        #expect(try engine.renderOffline(1_000, to: buffer) == .success)
        #expect(player.playerTime(forNodeTime: AVAudioTime(sampleTime: 3_000, atRate: 44_100))?.sampleTime == 1_500,
                "1 000 frames played before the pause, then from node time 2 500 on")
        player.stop()
        #expect(player.playerTime(forNodeTime: AVAudioTime(sampleTime: 3_000, atRate: 44_100)) == nil)
    }
    /// A render block that calls back into its engine (attaching, connecting and detaching a node, setting
    /// the mixer's volume, reading its state) while the engine renders it: no deadlock, and the calls take.
    @Test func aRenderBlockMayCallItsEngine() throws {
        let engine = AVAudioEngine()
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let calls = Locked(0)
        let source = AVAudioSourceNode { _, _, frameCount, data in
            let spare = AVAudioPlayerNode()
            engine.attach(spare)
            engine.connect(spare, to: engine.mainMixerNode, format: nil)
            engine.detach(spare)
            engine.mainMixerNode.outputVolume = 0.5
            calls.withLock { $0 += engine.isRunning ? 1 : 0 }
            for buffer in UnsafeMutableAudioBufferListPointer(data) {
                let samples = UnsafeMutableBufferPointer<Float>(buffer)
                for frame in 0..<Int(frameCount) { samples[frame] = 0.5 }
            }
            return noErr
        }
        engine.attach(source)
        engine.connect(source, to: engine.mainMixerNode, format: stereo)
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 256)
        try engine.start()
        let (left, _) = try renderAll(engine, frames: 768, block: 256)
        #expect(calls.withLock { $0 } == 3)
        #expect(left.suffix(256).allSatisfy { $0 == 0.25 }, "the volume set from the block applies from the next render")
        #expect(engine.attachedNodes.count == 3, "the spare nodes came and went: output, mixer, source")
    }
}
