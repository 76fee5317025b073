// Audio Converter Services without a server, called as C-style Swift code calls them: converters made
// and refused, buffers and buffer lists converted sample by sample, a rate conversion filled through an
// input procedure (its end, its own status, a converter disposed inside it), and the properties.
import Foundation
import OpenAudioToolbox
import Testing

/// A linear PCM description.
private func pcm(_ rate: Double, channels: UInt32, bits: UInt32, float: Bool = false, bigEndian: Bool = false,
                 interleaved: Bool = true) -> AudioStreamBasicDescription {
    var flags: AudioFormatFlags = (float ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger) | kAudioFormatFlagIsPacked
    if bigEndian { flags |= kAudioFormatFlagIsBigEndian }
    if !interleaved { flags |= kAudioFormatFlagIsNonInterleaved }
    let frameBytes = bits / 8 * (interleaved ? channels : 1)
    return AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                       mBytesPerPacket: frameBytes, mFramesPerPacket: 1, mBytesPerFrame: frameBytes,
                                       mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0)
}

private func makeConverter(_ from: AudioStreamBasicDescription, _ to: AudioStreamBasicDescription) throws -> AudioConverterRef {
    var source = from, destination = to
    var converter: AudioConverterRef?
    #expect(AudioConverterNew(&source, &destination, &converter) == noErr)
    return try #require(converter)
}

/// What an input procedure reads: mono float frames, handed out `chunk` at a time.
private final class Feed {
    let samples: [Float]
    var position = 0
    let chunk: Int
    var calls = 0
    var failWith: OSStatus?
    var disposeOnCall: Int?
    init(_ samples: [Float], chunk: Int) { self.samples = samples; self.chunk = chunk }
}

/// Claims twice the packets its buffer holds.
private let lyingProc: AudioConverterComplexInputDataProc = { _, ioPackets, ioData, _, userData in
    let samples = userData!.assumingMemoryBound(to: Float.self)
    ioData.pointee.mBuffers.mData = UnsafeMutableRawPointer(samples)
    ioData.pointee.mBuffers.mDataByteSize = 100 * 4
    ioPackets.pointee = 200
    return noErr
}

private let feedProc: AudioConverterComplexInputDataProc = { converter, ioPackets, ioData, _, userData in
    let feed = Unmanaged<Feed>.fromOpaque(userData!).takeUnretainedValue()
    feed.calls += 1
    if feed.disposeOnCall == feed.calls { AudioConverterDispose(converter) }
    if let status = feed.failWith { ioPackets.pointee = 0; return status }
    let count = min(Int(ioPackets.pointee), feed.chunk, feed.samples.count - feed.position)
    ioPackets.pointee = UInt32(count)
    feed.samples.withUnsafeBufferPointer { samples in
        ioData.pointee.mBuffers.mData = UnsafeMutableRawPointer(mutating: samples.baseAddress! + feed.position)
    }
    ioData.pointee.mBuffers.mDataByteSize = UInt32(count * 4)
    ioData.pointee.mBuffers.mNumberChannels = 1
    feed.position += count
    return noErr
}

struct AudioConverterServicesTests {
    @Test func convertersAreMadeForLinearPCMOnly() throws {
        var aac = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatMPEG4AAC, mFormatFlags: 0, mBytesPerPacket: 0,
                                              mFramesPerPacket: 1_024, mBytesPerFrame: 0, mChannelsPerFrame: 2, mBitsPerChannel: 0, mReserved: 0)
        var float = pcm(44_100, channels: 2, bits: 32, float: true)
        var converter: AudioConverterRef?
        #expect(AudioConverterNew(&aac, &float, &converter) == kAudioConverterErr_FormatNotSupported && converter == nil)
        #expect(OpenAudioToolboxLastErrorMessage()?.contains("'aac '") == true)
        var odd = pcm(44_100, channels: 2, bits: 20)
        #expect(AudioConverterNew(&odd, &float, &converter) == kAudioConverterErr_FormatNotSupported)
        let made = try makeConverter(pcm(44_100, channels: 2, bits: 16), float)
        #expect(AudioConverterDispose(made) == noErr)
        #expect(AudioConverterDispose(made) == kAudio_ParamError && AudioConverterReset(made) == kAudio_ParamError)
    }

    /// 16-bit stereo to 32-bit float: n / 32 768 exactly; big-endian 24-bit to little-endian 16-bit: rounded.
    @Test func buffersConvertSampleBySample() throws {
        let converter = try makeConverter(pcm(48_000, channels: 2, bits: 16), pcm(48_000, channels: 2, bits: 32, float: true))
        defer { AudioConverterDispose(converter) }
        let input: [Int16] = [-32_768, 32_767, 1, -1, 0, 12_345]
        var output = [Float](repeating: .nan, count: 8)
        var size = UInt32(output.count * 4)
        #expect(AudioConverterConvertBuffer(converter, UInt32(input.count * 2), input, &size, &output) == noErr)
        #expect(size == 24 && Array(output.prefix(6)) == input.map { Float($0) / 32_768 } && output[6].isNaN)

        let narrow = try makeConverter(pcm(48_000, channels: 1, bits: 24, bigEndian: true), pcm(48_000, channels: 1, bits: 16))
        defer { AudioConverterDispose(narrow) }
        let big: [UInt8] = [0x12, 0x34, 0x80, 0xFF, 0xFF, 0x7F, 0x7F, 0xFF, 0xFF]  // 0x123480, −129, 0x7FFFFF
        var narrowed = [Int16](repeating: 0, count: 3)
        size = 6
        #expect(AudioConverterConvertBuffer(narrow, 9, big, &size, &narrowed) == noErr)
        #expect(narrowed == [0x1235, -1, 32_767], "0x123480 / 256 rounds up; −129 / 256 to −1; the top clips at 32 767")
    }

    /// Deinterleaved float stereo to interleaved 16-bit; a channel map swaps; the lists' sizes are checked.
    @Test func bufferListsConvertAndChannelMapsSwap() throws {
        let converter = try makeConverter(pcm(44_100, channels: 2, bits: 32, float: true, interleaved: false), pcm(44_100, channels: 2, bits: 16))
        defer { AudioConverterDispose(converter) }
        var left: [Float] = [0.5, -0.25, 0], right: [Float] = [0.125, 1, -1]
        let input = AudioBufferList.allocate(maximumBuffers: 2)
        defer { free(input.unsafeMutablePointer) }
        var result = [Int16](repeating: 0, count: 6)
        try left.withUnsafeMutableBufferPointer { l in
            try right.withUnsafeMutableBufferPointer { r in
                input[0] = AudioBuffer(l, numberOfChannels: 1)
                input[1] = AudioBuffer(r, numberOfChannels: 1)
                try result.withUnsafeMutableBufferPointer { out in
                    var output = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(out, numberOfChannels: 2))
                    #expect(AudioConverterConvertComplexBuffer(converter, 3, input.unsafePointer, &output) == noErr)
                    #expect(Array(out) == [16_384, 4_096, -8_192, 32_767, 0, -32_768])
                    var map: [Int32] = [1, 0]
                    #expect(AudioConverterSetProperty(converter, kAudioConverterChannelMap, 8, &map) == noErr)
                    #expect(AudioConverterConvertComplexBuffer(converter, 3, input.unsafePointer, &output) == noErr)
                    #expect(Array(out) == [4_096, 16_384, 32_767, -8_192, -32_768, 0])
                    #expect(AudioConverterConvertComplexBuffer(converter, 4, input.unsafePointer, &output) == kAudioConverterErr_InvalidInputSize)
                    _ = try #require(Optional(out))
                }
            }
        }
    }

    /// A second of a 1 kHz sine at 44.1 kHz filled through an input procedure in 1 000-frame pieces into
    /// 48 kHz, 4 800 frames a fill: 48 000 frames in all, 1 kHz; the procedure's own status stops a fill
    /// with what was written; a converter disposed inside its procedure finishes the fill, then is gone.
    @Test func ratesConvertThroughTheInputProcedure() throws {
        let converter = try makeConverter(pcm(44_100, channels: 1, bits: 32, float: true), pcm(48_000, channels: 1, bits: 32, float: true))
        var quality = UInt32(kAudioConverterQuality_Max)
        #expect(AudioConverterSetProperty(converter, kAudioConverterSampleRateConverterQuality, 4, &quality) == noErr)
        let feed = Feed((0..<44_100).map { Float(0.5 * sin(2 * Double.pi * 1_000 * Double($0) / 44_100)) }, chunk: 1_000)
        var output: [Float] = []
        var piece = [Float](repeating: 0, count: 4_800)
        while true {
            var frames: UInt32 = 4_800
            let status = piece.withUnsafeMutableBufferPointer { out -> OSStatus in
                var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(out, numberOfChannels: 1))
                return AudioConverterFillComplexBuffer(converter, feedProc, Unmanaged.passUnretained(feed).toOpaque(), &frames, &list, nil)
            }
            #expect(status == noErr)
            output += piece.prefix(Int(frames))
            if frames == 0 { break }
        }
        #expect(output.count == 48_000)
        var crossings: [Double] = []
        for n in 4_800..<43_200 where output[n - 1] < 0 && output[n] >= 0 {
            crossings.append(Double(n - 1) + Double(-output[n - 1] / (output[n] - output[n - 1])))
        }
        let hz = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / 48_000)
        #expect(abs(hz - 1_000) < 0.1, "\(hz) Hz")

        #expect(AudioConverterReset(converter) == noErr)
        let failing = Feed(feed.samples, chunk: 1_000)
        failing.failWith = 0x6E6F7065  // 'nope': the program's own "no data now"
        var frames: UInt32 = 4_800
        let status = piece.withUnsafeMutableBufferPointer { out -> OSStatus in
            var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(out, numberOfChannels: 1))
            return AudioConverterFillComplexBuffer(converter, feedProc, Unmanaged.passUnretained(failing).toOpaque(), &frames, &list, nil)
        }
        #expect(status == 0x6E6F7065 && frames == 0)

        let disposing = Feed(feed.samples, chunk: 1_000)
        disposing.disposeOnCall = 1
        frames = 4_800
        let inside = piece.withUnsafeMutableBufferPointer { out -> OSStatus in
            var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(out, numberOfChannels: 1))
            return AudioConverterFillComplexBuffer(converter, feedProc, Unmanaged.passUnretained(disposing).toOpaque(), &frames, &list, nil)
        }
        #expect(inside == noErr && frames == 4_800)
        #expect(AudioConverterReset(converter) == kAudio_ParamError, "disposed inside its own procedure: gone after the fill")
    }

    /// A procedure that says it gave more packets than its buffer holds is refused
    /// (`kAudioConverterErr_InvalidInputSize`), nothing read past its buffer.
    @Test func aProcedureThatOverstatesItsPacketsIsRefused() throws {
        let converter = try makeConverter(pcm(44_100, channels: 1, bits: 32, float: true), pcm(44_100, channels: 1, bits: 16))
        defer { AudioConverterDispose(converter) }
        var samples = [Float](repeating: 0.5, count: 100)
        var output = [Int16](repeating: 0, count: 400)
        var frames: UInt32 = 400
        let status = samples.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out -> OSStatus in
                var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(out, numberOfChannels: 1))
                return AudioConverterFillComplexBuffer(converter, lyingProc, UnsafeMutableRawPointer(input.baseAddress), &frames, &list, nil)
            }
        }
        #expect(status == kAudioConverterErr_InvalidInputSize && frames == 0)
    }

    @Test func propertiesReadAndSetAsApplesDo() throws {
        let from = pcm(44_100, channels: 2, bits: 16), to = pcm(48_000, channels: 2, bits: 32, float: true, interleaved: false)
        let converter = try makeConverter(from, to)
        defer { AudioConverterDispose(converter) }
        var description = AudioStreamBasicDescription()
        var size = UInt32(MemoryLayout<AudioStreamBasicDescription>.size)
        #expect(AudioConverterGetProperty(converter, kAudioConverterCurrentOutputStreamDescription, &size, &description) == noErr)
        #expect(description.mSampleRate == 48_000 && description.mFormatFlags == to.mFormatFlags && description.mBytesPerFrame == 4)
        var bytes: UInt32 = 4_410 * 4
        size = 4
        #expect(AudioConverterGetProperty(converter, kAudioConverterPropertyCalculateOutputBufferSize, &size, &bytes) == noErr)
        #expect(bytes == 4_800 * 4, "4 410 frames at 44.1 kHz are 4 800 at 48 kHz, 4 bytes a frame in each buffer")
        var info = AudioConverterPrimeInfo(leadingFrames: 7, trailingFrames: 3)
        #expect(AudioConverterSetProperty(converter, kAudioConverterPrimeInfo, 8, &info) == noErr)
        info = AudioConverterPrimeInfo()
        size = 8
        #expect(AudioConverterGetProperty(converter, kAudioConverterPrimeInfo, &size, &info) == noErr && info.leadingFrames == 7 && info.trailingFrames == 3)
        var method: UInt32 = 3
        #expect(AudioConverterSetProperty(converter, kAudioConverterPrimeMethod, 4, &method) == kAudio_ParamError)
        var complexity = kAudioConverterSampleRateConverterComplexity_MinimumPhase
        #expect(AudioConverterSetProperty(converter, kAudioConverterSampleRateConverterComplexity, 4, &complexity) == noErr)
        complexity = 0
        size = 4
        #expect(AudioConverterGetProperty(converter, kAudioConverterSampleRateConverterComplexity, &size, &complexity) == noErr)
        #expect(complexity == kAudioConverterSampleRateConverterComplexity_MinimumPhase)
        var writable = DarwinBoolean(false)
        #expect(AudioConverterGetPropertyInfo(converter, kAudioConverterChannelMap, &size, &writable) == noErr && size == 8 && writable.boolValue)
        size = 2
        #expect(AudioConverterGetProperty(converter, kAudioConverterSampleRateConverterQuality, &size, &method) == kAudioConverterErr_BadPropertySizeError)
        #expect(AudioConverterGetPropertyInfo(converter, kAudioConverterEncodeBitRate, &size, &writable) == kAudioConverterErr_PropertyNotSupported)
    }
}
