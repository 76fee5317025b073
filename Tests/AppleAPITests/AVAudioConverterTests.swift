// AVAudioConverter without a server: rate conversion measured against `sox rate -v` on the same input,
// sample types, channel maps and downmix sample by sample, every status of the input block, and what it
// refuses.
import CSndFile
import Foundation
import OpenAVFAudio
import Testing
import TestSupport

/// A file's frames as floats, channel-interleaved, through libsndfile.
private func readFloats(_ path: String) throws -> (samples: [Float], channels: Int, rate: Int) {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else { throw CocoaError(.fileReadUnknown) }
    defer { sf_close(file) }
    var samples = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
    let read = samples.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, info.frames) }
    return (Array(samples.prefix(Int(read) * Int(info.channels))), Int(info.channels), Int(info.samplerate))
}

/// Frequency from the upward zero crossings (linearly interpolated) between `from` and `to`.
private func frequency(_ x: [Float], rate: Double, from: Int, to: Int) -> Double {
    var crossings: [Double] = []
    for n in max(1, from)..<to where x[n - 1] < 0 && x[n] >= 0 {
        crossings.append(Double(n - 1) + Double(-x[n - 1] / (x[n] - x[n - 1])))
    }
    return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / rate)
}

/// RMS level in dB and THD+N in dB (what is left after the least-squares sine at `hz` and DC, over the whole).
private func levelAndTHDN(_ x: [Float], rate: Double, hz: Double, from: Int, to: Int) -> (level: Double, thdn: Double) {
    var ss = 0.0, cc = 0.0, sc = 0.0, xs = 0.0, xc = 0.0, mean = 0.0
    for n in from..<to { mean += Double(x[n]) }
    mean /= Double(to - from)
    for n in from..<to {
        let phase = 2 * Double.pi * hz * Double(n) / rate
        let s = sin(phase), c = cos(phase), v = Double(x[n]) - mean
        ss += s * s; cc += c * c; sc += s * c; xs += v * s; xc += v * c
    }
    let det = ss * cc - sc * sc
    let a = (xs * cc - xc * sc) / det, b = (xc * ss - xs * sc) / det
    var total = 0.0, residual = 0.0
    for n in from..<to {
        let phase = 2 * Double.pi * hz * Double(n) / rate
        let v = Double(x[n])
        total += v * v
        let r = v - mean - a * sin(phase) - b * cos(phase)
        residual += r * r
    }
    return (10 * log10(total / Double(to - from)), 10 * log10(residual / total))
}

/// Converts all of `input` with `converter`, pulling 4 096 frames at a time and giving out 1 000-frame buffers.
private func convertAll(_ converter: AVAudioConverter, _ input: AVAudioPCMBuffer) throws -> [Float] {
    var offset = 0
    var output: [Float] = []
    let channels = Int(converter.outputFormat.channelCount)
    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: 1_000))
    while true {
        var error: NSError?
        let status = converter.convert(to: buffer, error: &error) { count, status in
            let frames = min(Int(count), Int(input.frameLength) - offset, 4_096)
            guard frames > 0 else {
                status.pointee = .endOfStream
                return nil
            }
            let slice = AVAudioPCMBuffer(pcmFormat: input.format, frameCapacity: AVAudioFrameCount(frames))!
            for channel in 0..<Int(input.format.channelCount) {
                for frame in 0..<frames {
                    slice.int16ChannelData![0][frame * Int(input.format.channelCount) + channel] =
                        input.int16ChannelData![0][(offset + frame) * Int(input.format.channelCount) + channel]
                }
            }
            slice.frameLength = AVAudioFrameCount(frames)
            offset += frames
            status.pointee = .haveData
            return slice
        }
        #expect(error == nil)
        for frame in 0..<Int(buffer.frameLength) {
            for channel in 0..<channels { output.append(buffer.floatChannelData![channel][frame]) }
        }
        if status == .endOfStream { break }
        #expect(status == .haveData, "\(status)")
    }
    return output
}

struct AVAudioConverterTests {
    /// Two seconds of a 16-bit 1 kHz sine at −6 dBFS, 44.1 → 48 kHz and 48 → 44.1 kHz at the highest quality:
    /// 1 kHz ± 0.1 Hz, the level within 0.05 dB and THD+N within 3 dB of sox's `rate -v` on the same file,
    /// and exactly as many frames as the rates say.
    @Test(arguments: [(44_100, 48_000), (48_000, 44_100)])
    func ratesConvertAsSoxDoes(_ rates: (Int, Int)) throws {
        let (from, to) = rates
        let directory = try temporaryDirectory()
        let source = directory + "/sine.wav", reference = directory + "/sox.wav"
        let samples = (0..<2 * from).map { Int16((16_384 * sin(2 * Double.pi * 1_000 * Double($0) / Double(from))).rounded()) }
        try writeWAV(source, samples: samples, channels: 1, sampleRate: from)
        let sox = try runProcess("/usr/bin/sox", [source, "-e", "floating-point", "-b", "32", reference, "rate", "-v", String(to)])
        #expect(sox.status == 0, "\(sox.stderr)")
        let expected = try readFloats(reference)

        let inputFormat = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: Double(from), channels: 1, interleaved: true))
        let outputFormat = try #require(AVAudioFormat(standardFormatWithSampleRate: Double(to), channels: 1))
        let converter = try #require(AVAudioConverter(from: inputFormat, to: outputFormat))
        converter.sampleRateConverterQuality = AVAudioQuality.max.rawValue
        let input = try #require(AVAudioPCMBuffer(pcmFormat: inputFormat, frameCapacity: AVAudioFrameCount(samples.count)))
        samples.withUnsafeBufferPointer { input.int16ChannelData![0].update(from: $0.baseAddress!, count: samples.count) }
        input.frameLength = AVAudioFrameCount(samples.count)
        let output = try convertAll(converter, input)

        #expect(output.count == 2 * to, "two seconds at \(to) Hz")
        let window = (to / 10, 2 * to - to / 10)
        let ours = levelAndTHDN(output, rate: Double(to), hz: 1_000, from: window.0, to: window.1)
        let theirs = levelAndTHDN(expected.samples, rate: Double(to), hz: 1_000, from: window.0, to: window.1)
        #expect(abs(frequency(output, rate: Double(to), from: window.0, to: window.1) - 1_000) < 0.1)
        #expect(abs(ours.level - theirs.level) < 0.05, "level \(ours.level) dB, sox \(theirs.level) dB")
        #expect(abs(ours.thdn - theirs.thdn) < 3, "THD+N \(ours.thdn) dB, sox \(theirs.thdn) dB")
        #expect(ours.thdn < -90, "THD+N \(ours.thdn) dB")
    }

    /// Int16 interleaved to float deinterleaved is exact (n / 32 768); back again rounds to the nearest and
    /// clips.
    @Test func sampleTypesConvertExactly() throws {
        let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 8_000, channels: 2, interleaved: true))
        let float = try #require(AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 2))
        let values: [Int16] = [-32_768, -1, 0, 1, 12_345, 32_767]
        let input = try #require(AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: 3))
        for (index, value) in values.enumerated() { input.int16ChannelData![0][index] = value }
        input.frameLength = 3
        let output = try #require(AVAudioPCMBuffer(pcmFormat: float, frameCapacity: 8))
        try #require(AVAudioConverter(from: int16, to: float)).convert(to: output, from: input)
        #expect(output.frameLength == 3)
        let expectedLeft: [Float] = [-1, 0, 12_345 / 32_768]
        let expectedRight: [Float] = [-1 / 32_768, 1 / 32_768, 32_767 / 32_768]
        #expect((0..<3).map { output.floatChannelData![0][$0] } == expectedLeft)
        #expect((0..<3).map { output.floatChannelData![1][$0] } == expectedRight)

        output.floatChannelData![0][0] = 2
        output.floatChannelData![1][0] = 0.49 / 32_768
        output.floatChannelData![0][1] = -0.51 / 32_768
        let back = try #require(AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: 2))
        try #require(AVAudioConverter(from: float, to: int16)).convert(to: back, from: output)
        #expect(back.frameLength == 2)
        #expect(Array(UnsafeBufferPointer(start: back.int16ChannelData![0], count: 4)) == [32_767, 0, -1, 1])
    }

    /// Stereo to mono takes the left channel, or with `downmix` the mean; mono to stereo goes to both; a
    /// channel map swaps or silences.
    @Test func channelsAreMappedAndDownmixed() throws {
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 2))
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 1))
        let input = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 4))
        let left: [Float] = [0.5, -0.25, 1, 0], right: [Float] = [0.25, 0.25, -1, 0.125]
        for frame in 0..<4 {
            input.floatChannelData![0][frame] = left[frame]
            input.floatChannelData![1][frame] = right[frame]
        }
        input.frameLength = 4
        func channels(_ buffer: AVAudioPCMBuffer) -> [[Float]] {
            (0..<Int(buffer.format.channelCount)).map { channel in (0..<Int(buffer.frameLength)).map { buffer.floatChannelData![channel][$0] } }
        }
        let toMono = try #require(AVAudioConverter(from: stereo, to: mono))
        let monoOut = try #require(AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 4))
        try toMono.convert(to: monoOut, from: input)
        #expect(channels(monoOut) == [left])
        toMono.downmix = true
        try toMono.convert(to: monoOut, from: input)
        #expect(channels(monoOut) == [zip(left, right).map { ($0 + $1) / 2 }])

        let swapper = try #require(AVAudioConverter(from: stereo, to: stereo))
        let stereoOut = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 4))
        #expect(swapper.channelMap == [0, 1])
        swapper.channelMap = [1, 0]
        try swapper.convert(to: stereoOut, from: input)
        #expect(channels(stereoOut) == [right, left])
        swapper.channelMap = [-1, 0]
        try swapper.convert(to: stereoOut, from: input)
        #expect(channels(stereoOut) == [[0, 0, 0, 0], left])

        let toStereo = try #require(AVAudioConverter(from: mono, to: stereo))
        let monoIn = try #require(AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 4))
        for frame in 0..<4 { monoIn.floatChannelData![0][frame] = left[frame] }
        monoIn.frameLength = 4
        try toStereo.convert(to: stereoOut, from: monoIn)
        #expect(channels(stereoOut) == [left, left])
    }

    /// The block's statuses: data fills the output (.haveData), no data now gives what there is
    /// (.inputRanDry), the end gives the rest then .endOfStream; a nil buffer or one of another format is
    /// an .error with a one-line NSError.
    @Test func everyInputStatusIsAnswered() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 1))
        let converter = try #require(AVAudioConverter(from: format, to: format))
        let output = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 10))
        let chunk = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 6))
        for frame in 0..<6 { chunk.floatChannelData![0][frame] = Float(frame + 1) }
        chunk.frameLength = 6
        var script: [AVAudioConverterInputStatus] = [.haveData, .haveData]
        var requests: [AVAudioPacketCount] = []
        var error: NSError?
        let block: AVAudioConverterInputBlock = { count, status in
            requests.append(count)
            status.pointee = script.isEmpty ? .noDataNow : script.removeFirst()
            return status.pointee == .haveData ? chunk : nil
        }
        #expect(converter.convert(to: output, error: &error, withInputFrom: block) == .haveData)
        #expect(output.frameLength == 10 && requests.first == 10 && error == nil, "asked for the frames that fill the output")
        #expect((0..<10).map { output.floatChannelData![0][$0] } == [1, 2, 3, 4, 5, 6, 1, 2, 3, 4])
        #expect(converter.convert(to: output, error: &error, withInputFrom: block) == .inputRanDry)
        #expect(output.frameLength == 2 && output.floatChannelData![0][0] == 5 && output.floatChannelData![0][1] == 6)
        script = [.endOfStream]
        #expect(converter.convert(to: output, error: &error, withInputFrom: block) == .endOfStream)
        #expect(output.frameLength == 0)

        converter.reset()
        let otherFormat = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
        let other = try #require(AVAudioPCMBuffer(pcmFormat: otherFormat, frameCapacity: 4))
        for given in [nil, other] as [AVAudioPCMBuffer?] {
            error = nil
            let status = converter.convert(to: output, error: &error) { _, status in
                status.pointee = .haveData
                return given
            }
            #expect(status == .error)
            #expect(error?.code == Int(kAudioConverterErr_FormatNotSupported))
            #expect(error?.localizedDescription.contains("\n") == false && error?.localizedDescription.isEmpty == false)
        }
        #expect(converter.convert(to: other, error: &error) { _, status in status.pointee = .endOfStream; return nil } == .error)
    }

    /// Buffer to buffer refuses differing rates; buffers of other formats are refused; a compressed format
    /// makes no converter and the reason is told.
    @Test func whatItCannotDoIsRefusedWithALine() throws {
        let slow = try #require(AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 1))
        let fast = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
        let converter = try #require(AVAudioConverter(from: slow, to: fast))
        let a = try #require(AVAudioPCMBuffer(pcmFormat: slow, frameCapacity: 4))
        let b = try #require(AVAudioPCMBuffer(pcmFormat: fast, frameCapacity: 4))
        let rateError = #expect(throws: NSError.self) { try converter.convert(to: b, from: a) }
        #expect(rateError?.localizedDescription.contains("withInputFrom") == true)
        let same = try #require(AVAudioConverter(from: slow, to: slow))
        #expect(throws: NSError.self) { try same.convert(to: b, from: a) }

        var aac = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatMPEG4AAC, mFormatFlags: 0, mBytesPerPacket: 0,
                                              mFramesPerPacket: 1_024, mBytesPerFrame: 0, mChannelsPerFrame: 2, mBitsPerChannel: 0, mReserved: 0)
        if let compressed = AVAudioFormat(streamDescription: &aac) {
            #expect(AVAudioConverter(from: compressed, to: slow) == nil)
            #expect(OpenAVFAudioLastErrorMessage()?.contains("linear PCM only") == true)
        }
    }

    /// `.none` delays the output by the leading frames (at the output rate), `.pre` drops as many.
    @Test func primingDelaysOrDrops() throws {
        let slow = try #require(AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 1))
        let fast = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
        func firstLoud(_ method: AVAudioConverterPrimeMethod) throws -> Int {
            let converter = try #require(AVAudioConverter(from: slow, to: fast))
            converter.primeMethod = method
            converter.primeInfo = AVAudioConverterPrimeInfo(leadingFrames: 100, trailingFrames: 0)
            let input = try #require(AVAudioPCMBuffer(pcmFormat: slow, frameCapacity: 800))
            for frame in 400..<800 { input.floatChannelData![0][frame] = 0.5 }
            input.frameLength = 800
            var given = false
            let output = try #require(AVAudioPCMBuffer(pcmFormat: fast, frameCapacity: 4_000))
            var error: NSError?
            _ = converter.convert(to: output, error: &error) { _, status in
                status.pointee = given ? .endOfStream : .haveData
                defer { given = true }
                return given ? nil : input
            }
            return (0..<Int(output.frameLength)).first { abs(output.floatChannelData![0][$0]) > 0.25 } ?? -1
        }
        let normal = try firstLoud(.normal)
        #expect(abs(normal - 800) <= 2, "the step at input frame 400 is at output frame 800: \(normal)")
        #expect(try firstLoud(.none) == normal + 200)
        #expect(try firstLoud(.pre) == normal - 200)
    }
}
